"""Claims kept in SQLite, over the standard library's ``sqlite3``: ``SqliteClaims``, the durable
store for one instance (or the processes of one host sharing the file). A restart keeps every done
id (the memory store forgets them), and ``complete_in`` commits the completion with the host's
own write of the event. The rules are core's; the table keeps entry texts (``xborder_claims``:
``MIGRATION``, the migration shipped in this package) and each load and compare-and-set is one
statement (``LOAD``, ``INSERT``, ``UPDATE``, ``DELETE``: the Rust crate's, so Rust, Node and
Python processes share one file).

    conn = xborder.sqlite.connect("app.db")           # WAL, a busy timeout, the table
    claims = SqliteClaims(lease_ms=30_000)
    if claims.step(conn, "claim", event_id, token, now_ms) is ClaimOutcome.CLAIMED:
        with conn:                                     # commits, or rolls back on an exception
            conn.execute("INSERT INTO events ...")     # the event's row
            if claims.complete_in(conn, event_id, token, now_ms) is not ClaimOutcome.COMPLETED:
                conn.rollback()                        # stale: another request took it over

A ``sqlite3.Connection`` belongs to one thread (``check_same_thread``): give each thread its own
(``connect`` is cheap). Times are the host's clock (``at_ms``, ms since the Unix epoch): a row
expires at the step's time plus the TTL core gives, and a row that expired at the step's time is
no row (the times core gives the store, ``StoreTime``: the row's ``expires_at_ms``, the step's
``now_ms``); ``purge`` deletes the expired rows (run it now and then). Needs SQLite 3.24 or newer
(``INSERT ... ON CONFLICT``).
"""

import os
import sqlite3
from typing import Any, Callable, List, Optional, Union

from ._sql import (TABLE, SqlClaims, SqlStore, Statements, StatementStore, drive, migration,
                   now_ms_param)
from .claims import ClaimOutcome, StoreTime
from .errors import StoreError

__all__ = ["MIGRATION", "TABLE", "LOAD", "INSERT", "UPDATE", "DELETE", "PURGE", "BUSY_TIMEOUT_S",
           "connect", "migrate", "purge", "SqliteClaims", "SqliteClaimStore"]

MIGRATION: str = migration("sqlite.sql")
"""The table's DDL (stores/sql/migrations/sqlite.sql, shipped in the package): idempotent;
``migrate`` (and ``connect``) run it, or copy it into your migrations."""

LOAD = ("SELECT entry FROM xborder_claims "
        "WHERE id = ?1 AND (expires_at IS NULL OR expires_at > ?2)")
"""The entry of ``?1`` unless it expired at ``?2`` (the step's time)."""

INSERT = ("INSERT INTO xborder_claims AS c (id, entry, expires_at) "
          "VALUES (?1, ?2, ?3) "
          "ON CONFLICT (id) DO UPDATE SET entry = excluded.entry, expires_at = excluded.expires_at "
          "WHERE c.expires_at IS NOT NULL AND c.expires_at <= ?4")
"""Writes entry ``?2`` (expiring at ``?3``) for id ``?1`` when it has no row, or only a row
expired at ``?4``: one row changed when applied, none when a live row is there."""

UPDATE = ("UPDATE xborder_claims SET entry = ?3, expires_at = ?4 "
          "WHERE id = ?1 AND entry = ?2 AND (expires_at IS NULL OR expires_at > ?5)")
"""Replaces entry ``?2`` of id ``?1`` with ``?3`` (expiring at ``?4``) when the row still holds
``?2`` and has not expired at ``?5``."""

DELETE = ("DELETE FROM xborder_claims "
          "WHERE id = ?1 AND entry = ?2 AND (expires_at IS NULL OR expires_at > ?3)")
"""Removes id ``?1``'s row when it still holds entry ``?2`` and has not expired at ``?3``."""

PURGE = "DELETE FROM xborder_claims WHERE expires_at <= ?1"
"""Deletes the rows expired at ``?1``."""

BUSY_TIMEOUT_S = 5.0
"""How long a statement of a ``connect``-ed connection waits for another connection's write."""

_SQL = Statements(LOAD, INSERT, UPDATE, DELETE)


def _conn(conn: object) -> sqlite3.Connection:
    if not isinstance(conn, sqlite3.Connection):
        raise TypeError("conn must be a sqlite3.Connection, got %s" % type(conn).__name__)
    return conn


def _state(conn: sqlite3.Connection) -> Optional[bool]:
    """Whether ``conn`` is inside a transaction (None: closed, so any statement fails)."""
    try:
        return conn.in_transaction
    except sqlite3.Error:
        return None


def _same(value: int) -> int:
    return value


def _script(text: str) -> List[str]:
    """The statements of a migration, one by one (``executescript`` would commit the caller's
    open transaction first)."""
    out, buf = [], ""
    for line in text.splitlines(keepends=True):
        if not buf and (not line.strip() or line.lstrip().startswith("--")):
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out


_MIGRATION_STATEMENTS = _script(MIGRATION)


def connect(path: "Union[str, os.PathLike[str]]", *, check_same_thread: bool = True
            ) -> sqlite3.Connection:
    """Opens (or creates) the database at ``path`` (``":memory:"``: a private one) the way the
    claims want it: WAL mode on a file (readers never wait for the writer; the mode stays with
    the file), a busy timeout (``BUSY_TIMEOUT_S``: a write waits for another's instead of
    failing), transactions begun ``IMMEDIATE`` (a transaction takes the write lock first, so it
    never fails half-way for a writer that came between), and ``migrate``. ``sqlite3``'s errors
    as they are."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError("path must be a str or an os.PathLike (the database file, or "
                        "\":memory:\"), got %s" % type(path).__name__)
    if isinstance(os.fspath(path), bytes):
        raise TypeError("path must be a str or an os.PathLike of str, got a bytes path")
    if not isinstance(check_same_thread, bool):
        raise TypeError("check_same_thread must be a bool, got %s" % type(check_same_thread).__name__)
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level="IMMEDIATE",
                           check_same_thread=check_same_thread)
    try:
        # A file answers "wal"; an in-memory database keeps "memory".
        conn.execute("PRAGMA journal_mode = WAL").fetchone()
        migrate(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def _finish(conn: sqlite3.Connection, was: Optional[bool]) -> Callable[[], None]:
    def finish() -> None:
        if was is False and conn.in_transaction:
            conn.commit()
    return finish


def _undo(conn: sqlite3.Connection, was: Optional[bool]) -> None:
    if was is False and _state(conn):
        try:
            conn.rollback()
        except Exception:
            pass


def migrate(conn: sqlite3.Connection) -> None:
    """Runs ``MIGRATION`` on ``conn``, statement by statement (idempotent; inside your open
    transaction it joins it, otherwise it is committed). ``sqlite3``'s errors as they are."""
    _conn(conn)
    was = _state(conn)
    try:
        for statement in _MIGRATION_STATEMENTS:
            conn.execute(statement)
        _finish(conn, was)()
    except BaseException:
        _undo(conn, was)
        raise


def purge(conn: sqlite3.Connection, now_ms: int) -> int:
    """Deletes the rows expired at ``now_ms`` (no step sees them already); the number deleted.
    Run it now and then (every few minutes or hours). Raises ``StoreError``
    (``STORE_UNAVAILABLE``) when the statement fails."""
    _conn(conn)
    now = now_ms_param(now_ms)
    was = _state(conn)
    try:
        n = conn.execute(PURGE, [now]).rowcount
        _finish(conn, was)()
        return int(n)
    except sqlite3.Error as e:
        _undo(conn, was)
        raise StoreError("STORE_UNAVAILABLE", "sqlite: purge: %s" % e) from e


class SqliteClaims(SqlClaims):
    """Claims in an SQLite database, over ``sqlite3``. It holds only the rules (``lease_ms``;
    ``window_ms``: how long a done id is a duplicate, None for core's default, 7 days): each
    call takes the connection to use (one per thread). Store failures (SQLite failed, busy past
    the timeout, a row that is not core's text) are ``StoreError`` (``STORE_UNAVAILABLE``,
    ``sqlite3``'s error as ``__cause__``), answered with ``claim_error_reply``."""

    __slots__ = ()

    def step(self, conn: sqlite3.Connection, step: str, id: str, token: str,
             at_ms: int) -> ClaimOutcome:
        """One step (``claim``, ``complete``, ``release``) by ``token`` on event ``id`` at
        ``at_ms`` (your clock, ms), on ``conn``: in no transaction, the step commits its write;
        inside your open transaction, its write commits or rolls back with it (see
        ``complete_in``). Raises ``ClaimError`` (``INVALID_STEP``: nothing is run) or
        ``StoreError`` (``STORE_UNAVAILABLE``)."""
        _conn(conn)
        task = self._task(step, id, token, at_ms)
        return _run(conn, task)

    def store(self, conn: sqlite3.Connection) -> "SqliteClaimStore":
        """These claims on ``conn`` as a store for ``xborder.handle_delivery`` (this lease and
        window): ``handle_delivery(receiver, claims.store(conn), body, headers, persist)``."""
        return SqliteClaimStore(self, conn)

    def complete_in(self, conn: sqlite3.Connection, id: str, token: str,
                    at_ms: int) -> ClaimOutcome:
        """Completes ``id`` for ``token`` inside the host's open transaction on ``conn`` (after
        the insert of the event, before the commit), so both commit together or neither does:
        rolled back, the claim stays held until its lease ends, then the provider's retry
        processes the event. ``stale``: another request took the id over (the lease ended):
        roll back, the event is that request's. Begin the transaction ``IMMEDIATE`` (``connect``
        does): a deferred one that read before another connection wrote cannot write any more
        (``STORE_UNAVAILABLE``). A ``conn`` in no transaction is a ``ValueError``."""
        _conn(conn)
        if _state(conn) is False:
            raise ValueError("conn must be inside the host's open transaction (insert the event "
                             "on it first, then complete_in, then commit), got a connection in "
                             "none")
        task = self._task("complete", id, token, at_ms)
        return _run(conn, task)


class SqliteClaimStore(SqlStore):
    """``SqliteClaims`` on one connection, as the store ``handle_delivery`` drives
    (``SqliteClaims.store(conn)``): each load and compare-and-set is one statement at the
    times core gives (``StoreTime``), committed at once unless ``conn`` is inside your open transaction. Its errors
    are ``sqlite3``'s (the handling answers them as ``STORE_UNAVAILABLE``). It is also a
    ``Transaction`` on its connection (``handle_delivery(..., transaction=store)``): the
    event's write and the claim's completion on this connection commit together."""

    __slots__ = ("_conn", "_tx", "_failed", "_statements")

    def __init__(self, claims: SqliteClaims, conn: sqlite3.Connection) -> None:
        self._conn = _conn(conn)
        super().__init__(claims)
        self._tx = False
        self._failed: Optional[BaseException] = None
        self._statements = StatementStore(_SQL, _same, self._query, self._execute)

    def begin(self) -> None:
        """Opens the transaction of ``handle_delivery(..., transaction=store)`` on the
        connection (``BEGIN``, of the connection's ``isolation_level``: ``IMMEDIATE`` from
        ``connect``; it must be in none): the store's statements are not committed until
        ``commit``."""
        if self._conn.in_transaction:
            raise ValueError("the store's transaction begins on a connection in no "
                             "transaction, got one inside a transaction")
        self._conn.execute(("BEGIN " + (self._conn.isolation_level or "")).strip())
        self._tx, self._failed = True, None

    def commit(self) -> None:
        """Commits the transaction ``begin`` opened (``sqlite3``'s error when it did not). A
        transaction in which a statement of this store failed is not committed (an
        ``sqlite3.OperationalError``, the statement's error as its cause), as PostgreSQL does
        with a failed transaction: SQLite would commit the rest."""
        failed, self._tx, self._failed = self._failed, False, None
        if failed is not None:
            raise sqlite3.OperationalError("a statement of the transaction failed: not "
                                           "committed (%s: %s)" % (type(failed).__name__,
                                                                    failed)) from failed
        self._conn.commit()

    def rollback(self) -> None:
        """Rolls the transaction ``begin`` opened back."""
        self._tx, self._failed = False, None
        self._conn.rollback()

    def _statement(self, sql: str, params: List[Any], rows: bool) -> Any:
        conn = self._conn
        was = None if self._tx else _state(conn)
        try:
            cur = conn.execute(sql, params)
            out = cur.fetchone() if rows else int(cur.rowcount)
            _finish(conn, was)()
            return out
        except BaseException as e:
            if self._tx:
                self._failed = e
            _undo(conn, was)
            raise

    def _query(self, sql: str, params: List[Any]) -> Optional[str]:
        row = self._statement(sql, params, True)
        return None if row is None else row[0]

    def _execute(self, sql: str, params: List[Any]) -> int:
        return int(self._statement(sql, params, False))

    def load(self, id: str, time: StoreTime) -> Optional[str]:
        """The entry text of ``id`` (None: none, or expired at ``time.now_ms``)."""
        return self._statements.load(id, time)

    def compare_and_set(self, id: str, expected: Optional[str], new: Optional[str],
                        time: StoreTime) -> bool:
        """``ClaimStore.compare_and_set`` as one statement (``INSERT``, ``UPDATE``,
        ``DELETE``; the row expires at ``time.expires_at_ms``)."""
        return self._statements.compare_and_set(id, expected, new, time)

    def __repr__(self) -> str:
        return "SqliteClaimStore(lease_ms=%d, window_ms=%r)" % (self.lease_ms, self.window_ms)


def _run(conn: sqlite3.Connection, task: Any) -> ClaimOutcome:
    was = _state(conn)

    def query(sql: str, params: List[Any]) -> Optional[str]:
        row = conn.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def execute(sql: str, params: List[Any]) -> int:
        return int(conn.execute(sql, params).rowcount)

    try:
        return drive(task, StatementStore(_SQL, _same, query, execute), _finish(conn, was))
    except BaseException:
        _undo(conn, was)
        raise
