"""Claims kept in PostgreSQL, over psycopg 3 (``pip install 'xborder[postgres]'``):
``PostgresClaims`` for a ``psycopg.Connection``, ``AsyncPostgresClaims`` for a
``psycopg.AsyncConnection``. The rules are core's; the table keeps entry texts
(``xborder_claims``: ``migrate`` creates it from ``MIGRATION``, the migration shipped in this
package) and each load and compare-and-set is one statement (``LOAD``, ``INSERT``, ``UPDATE``,
``DELETE``: the Rust crate's, so Rust, Node and Python instances share one table).

    conn = psycopg.connect(url, autocommit=True)
    xborder.postgres.migrate(conn)
    claims = PostgresClaims(lease_ms=30_000)
    if claims.step(conn, "claim", event_id, token, now_ms) is ClaimOutcome.CLAIMED:
        with conn.transaction():                      # the host's transaction
            conn.execute("INSERT INTO events ...")    # the event's row
            if claims.complete_in(conn, event_id, token, now_ms) is not ClaimOutcome.COMPLETED:
                raise psycopg.Rollback()              # stale: another request took it over

Times are the host's clock (``at_ms``, ms since the Unix epoch), as core gives them to the
store (``StoreTime``): a row expires at ``expires_at_ms`` (the step's time plus two leases for a
claim, plus the window for a done id), and a row that expired at the step's ``now_ms`` is no row. The hosts of one consumer must agree on the time within
much less than the lease (NTP does). ``purge`` deletes the expired rows (run it now and then).
"""

from typing import TYPE_CHECKING, Any, List, Optional

from ._sql import (TABLE, AsyncStatementStore, SqlClaims, SqlStore, Statements, StatementStore,
                   drive, drive_async, migration, now_ms_param)
from .claims import ClaimOutcome, StoreTime
from .errors import StoreError

if TYPE_CHECKING:
    import psycopg

__all__ = ["MIGRATION", "MIGRATION_LOCK", "TABLE", "LOAD", "INSERT", "UPDATE", "DELETE", "PURGE", "migrate",
           "migrate_async", "purge", "purge_async", "PostgresClaims", "AsyncPostgresClaims",
           "PostgresClaimStore", "AsyncPostgresClaimStore"]

MIGRATION: str = migration("postgres.sql")
"""The table's DDL (stores/sql/migrations/postgres.sql, shipped in the package): idempotent;
``migrate`` runs it, or copy it into your migrations."""

LOAD = ("SELECT entry FROM xborder_claims "
        "WHERE id = $1 AND (expires_at IS NULL OR expires_at > $2)")
"""The entry of ``$1`` unless it expired at ``$2`` (the step's time)."""

INSERT = ("INSERT INTO xborder_claims AS c (id, entry, expires_at) "
          "VALUES ($1, $2, $3) "
          "ON CONFLICT (id) DO UPDATE SET entry = excluded.entry, expires_at = excluded.expires_at "
          "WHERE c.expires_at IS NOT NULL AND c.expires_at <= $4")
"""Writes entry ``$2`` (expiring at ``$3``) for id ``$1`` when it has no row, or only a row
expired at ``$4``: one row affected when applied, none when a live row is there."""

UPDATE = ("UPDATE xborder_claims SET entry = $3, expires_at = $4 "
          "WHERE id = $1 AND entry = $2 AND (expires_at IS NULL OR expires_at > $5)")
"""Replaces entry ``$2`` of id ``$1`` with ``$3`` (expiring at ``$4``) when the row still holds
``$2`` and has not expired at ``$5``."""

DELETE = ("DELETE FROM xborder_claims "
          "WHERE id = $1 AND entry = $2 AND (expires_at IS NULL OR expires_at > $3)")
"""Removes id ``$1``'s row when it still holds entry ``$2`` and has not expired at ``$3``."""

MIGRATION_LOCK = "SELECT pg_advisory_xact_lock(hashtext('xborder_claims'))"
"""What ``migrate`` runs first, in the migration's own transaction (the Rust and Node stores
take the same lock): instances that start together migrate one after the other (two concurrent
``CREATE TABLE IF NOT EXISTS`` of one table can fail with a duplicate key in ``pg_type``)."""

PURGE = "DELETE FROM xborder_claims WHERE expires_at <= $1"
"""Deletes the rows expired at ``$1``."""

_SQL = Statements(LOAD, INSERT, UPDATE, DELETE)

_HINT = "psycopg 3: pip install 'xborder[postgres]'"


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        return None
    return psycopg


def _connection(conn: object, name: str, want_async: bool) -> Any:
    """psycopg, once ``conn`` is a Connection (or an AsyncConnection with ``want_async``);
    else a TypeError naming ``name`` and where the other kind goes."""
    pg = _psycopg()
    want = "AsyncConnection" if want_async else "Connection"
    if pg is None or not isinstance(conn, getattr(pg, want)):
        also = ""
        if pg is not None and want_async and isinstance(conn, pg.Connection):
            also = " (a sync Connection goes to PostgresClaims and the sync functions)"
        elif pg is not None and not want_async and isinstance(conn, pg.AsyncConnection):
            also = " (an AsyncConnection goes to AsyncPostgresClaims and the *_async functions)"
        raise TypeError("%s must be a psycopg.%s (%s), got %s%s"
                        % (name, want, _HINT, type(conn).__name__, also))
    return pg


def _sync(conn: object, name: str = "conn") -> Any:
    return _connection(conn, name, False)


def _async(conn: object, name: str = "conn") -> Any:
    return _connection(conn, name, True)


def _own_transaction(pg: Any, conn: Any) -> bool:
    """Whether a statement on ``conn`` opens a transaction that nobody else will end: not in
    autocommit and in no transaction (then the step commits what it wrote)."""
    return not conn.autocommit and conn.info.transaction_status == pg.pq.TransactionStatus.IDLE


def _in_transaction(pg: Any, conn: Any) -> None:
    status = conn.info.transaction_status
    if status in (pg.pq.TransactionStatus.INTRANS, pg.pq.TransactionStatus.UNKNOWN):
        return  # UNKNOWN: the connection is closed or broken, the statement fails
    if status == pg.pq.TransactionStatus.INERROR:
        raise ValueError("conn's transaction has failed: roll it back (complete_in runs inside "
                         "the host's open transaction)")
    raise ValueError("conn must be inside the host's open transaction (with conn.transaction(): "
                     "insert the event, then complete_in), got a connection in none (%s)"
                     % getattr(status, "name", status))


def _begin_check(pg: Any, conn: Any) -> None:
    if conn.info.transaction_status != pg.pq.TransactionStatus.IDLE:
        raise ValueError("the store's transaction begins on a connection in no transaction, got "
                         "one in %s" % getattr(conn.info.transaction_status, "name", "?"))


def _commit_check(pg: Any, conn: Any) -> None:
    # PostgreSQL answers COMMIT in a failed transaction with a ROLLBACK, and no error.
    if conn.info.transaction_status == pg.pq.TransactionStatus.INERROR:
        raise pg.errors.InFailedSqlTransaction("the transaction failed (a statement in it "
                                               "raised): not committed")


def _int8(pg: Any) -> Any:
    return pg.types.numeric.Int8


class PostgresClaims(SqlClaims):
    """Claims in PostgreSQL shared by every instance of one consumer, over psycopg 3's sync
    ``Connection``. It holds only the rules (``lease_ms``; ``window_ms``: how long a done id is
    a duplicate, None for core's default, 7 days): each call takes the connection to use.
    Store failures are ``StoreError`` (``STORE_UNAVAILABLE``, psycopg's error as
    ``__cause__``), answered with ``claim_error_reply``."""

    __slots__ = ()

    def step(self, conn: "psycopg.Connection[Any]", step: str, id: str, token: str,
             at_ms: int) -> ClaimOutcome:
        """One step (``claim``, ``complete``, ``release``) by ``token`` on event ``id`` at
        ``at_ms`` (your clock, ms), on ``conn``: in autocommit, or in no transaction (the step
        commits its write), or inside your open transaction (its write commits or rolls back
        with it: see ``complete_in``). Raises ``ClaimError`` (``INVALID_STEP``: nothing is sent)
        or ``StoreError`` (``STORE_UNAVAILABLE``)."""
        pg = _sync(conn)
        task = self._task(step, id, token, at_ms)
        return _run(pg, conn, task, _own_transaction(pg, conn))

    def store(self, conn: "psycopg.Connection[Any]") -> "PostgresClaimStore":
        """These claims on ``conn`` as a store for ``xborder.handle_delivery`` (this lease and
        window): ``handle_delivery(receiver, claims.store(conn), body, headers, persist)``."""
        return PostgresClaimStore(self, conn)

    def complete_in(self, conn: "psycopg.Connection[Any]", id: str, token: str,
                    at_ms: int) -> ClaimOutcome:
        """Completes ``id`` for ``token`` inside the host's open transaction on ``conn`` (``with
        conn.transaction():``, after the insert of the event), so both commit together or
        neither does: rolled back, the claim stays held until its lease ends, then the
        provider's retry processes the event. ``stale``: another request took the id over (the
        lease ended): roll back, the event is that request's. Run it last, just before the
        commit (it locks the claim's row), at READ COMMITTED (PostgreSQL's default). A ``conn``
        in no transaction is a ``ValueError``."""
        pg = _sync(conn)
        _in_transaction(pg, conn)
        task = self._task("complete", id, token, at_ms)
        return _run(pg, conn, task, False)


class AsyncPostgresClaims(SqlClaims):
    """``PostgresClaims`` over psycopg 3's ``AsyncConnection`` (asyncio): ``await
    claims.step(conn, ...)``; nothing blocks the event loop."""

    __slots__ = ()

    async def step(self, conn: "psycopg.AsyncConnection[Any]", step: str, id: str, token: str,
                   at_ms: int) -> ClaimOutcome:
        """``PostgresClaims.step`` on an ``AsyncConnection``."""
        pg = _async(conn)
        task = self._task(step, id, token, at_ms)
        return await _run_async(pg, conn, task, _own_transaction(pg, conn))

    def store(self, conn: "psycopg.AsyncConnection[Any]") -> "AsyncPostgresClaimStore":
        """These claims on ``conn`` as a store for ``xborder.handle_delivery_async`` (this lease
        and window)."""
        return AsyncPostgresClaimStore(self, conn)

    async def complete_in(self, conn: "psycopg.AsyncConnection[Any]", id: str, token: str,
                          at_ms: int) -> ClaimOutcome:
        """``PostgresClaims.complete_in`` on an ``AsyncConnection`` (``async with
        conn.transaction():``)."""
        pg = _async(conn)
        _in_transaction(pg, conn)
        task = self._task("complete", id, token, at_ms)
        return await _run_async(pg, conn, task, False)


class PostgresClaimStore(SqlStore):
    """``PostgresClaims`` on one sync ``Connection``, as the store ``handle_delivery`` drives
    (``PostgresClaims.store(conn)``): each load and compare-and-set is one statement at the
    times core gives (``StoreTime``), committed at once unless ``conn`` is inside your open transaction. Its errors
    are psycopg's (the handling answers them as ``STORE_UNAVAILABLE``). It is also a
    ``Transaction`` on its connection (``handle_delivery(..., transaction=store)``): the
    event's write and the claim's completion on this connection commit together."""

    __slots__ = ("_conn", "_pg", "_tx", "_statements")

    def __init__(self, claims: PostgresClaims, conn: "psycopg.Connection[Any]") -> None:
        self._pg = _sync(conn)
        super().__init__(claims)
        self._conn = conn
        self._tx = False
        self._statements = StatementStore(_SQL, _int8(self._pg), self._query, self._execute)

    def begin(self) -> None:
        """Opens the transaction of ``handle_delivery(..., transaction=store)`` on the
        connection (in autocommit, ``BEGIN``; otherwise psycopg's own, at the next statement):
        the store's statements are not committed until ``commit``."""
        pg, conn = self._pg, self._conn
        _begin_check(pg, conn)
        if conn.autocommit:
            conn.execute("BEGIN")
        self._tx = True

    def commit(self) -> None:
        """Commits the transaction ``begin`` opened (raises when it did not commit)."""
        pg, conn = self._pg, self._conn
        self._tx = False
        _commit_check(pg, conn)
        if conn.autocommit:
            conn.execute("COMMIT")
        else:
            conn.commit()

    def rollback(self) -> None:
        """Rolls the transaction ``begin`` opened back."""
        pg, conn = self._pg, self._conn
        self._tx = False
        if not conn.autocommit:
            conn.rollback()
        elif conn.info.transaction_status != pg.pq.TransactionStatus.IDLE:
            conn.execute("ROLLBACK")

    def _statement(self, sql: str, params: List[Any], rows: bool) -> Any:
        pg, conn = self._pg, self._conn
        own = not self._tx and _own_transaction(pg, conn)
        try:
            with pg.RawCursor(conn, row_factory=pg.rows.tuple_row) as cur:
                cur.execute(sql, params)
                out = cur.fetchone() if rows else int(cur.rowcount)
            if own:
                conn.commit()
            return out
        except BaseException:
            if own:
                _quietly(conn.rollback)
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
        return "PostgresClaimStore(lease_ms=%d, window_ms=%r)" % (self.lease_ms, self.window_ms)


class AsyncPostgresClaimStore(SqlStore):
    """``PostgresClaimStore`` on an ``AsyncConnection``, for ``handle_delivery_async``
    (``AsyncPostgresClaims.store(conn)``)."""

    __slots__ = ("_conn", "_pg", "_tx", "_statements")

    def __init__(self, claims: AsyncPostgresClaims,
                 conn: "psycopg.AsyncConnection[Any]") -> None:
        self._pg = _async(conn)
        super().__init__(claims)
        self._conn = conn
        self._tx = False
        self._statements = AsyncStatementStore(_SQL, _int8(self._pg), self._query,
                                               self._execute)

    async def begin(self) -> None:
        """``PostgresClaimStore.begin``, awaited (``handle_delivery_async(...,
        transaction=store)``)."""
        pg, conn = self._pg, self._conn
        _begin_check(pg, conn)
        if conn.autocommit:
            await conn.execute("BEGIN")
        self._tx = True

    async def commit(self) -> None:
        """``PostgresClaimStore.commit``, awaited."""
        pg, conn = self._pg, self._conn
        self._tx = False
        _commit_check(pg, conn)
        if conn.autocommit:
            await conn.execute("COMMIT")
        else:
            await conn.commit()

    async def rollback(self) -> None:
        """``PostgresClaimStore.rollback``, awaited."""
        pg, conn = self._pg, self._conn
        self._tx = False
        if not conn.autocommit:
            await conn.rollback()
        elif conn.info.transaction_status != pg.pq.TransactionStatus.IDLE:
            await conn.execute("ROLLBACK")

    async def _statement(self, sql: str, params: List[Any], rows: bool) -> Any:
        pg, conn = self._pg, self._conn
        own = not self._tx and _own_transaction(pg, conn)
        try:
            async with pg.AsyncRawCursor(conn, row_factory=pg.rows.tuple_row) as cur:
                await cur.execute(sql, params)
                out = await cur.fetchone() if rows else int(cur.rowcount)
            if own:
                await conn.commit()
            return out
        except BaseException:
            if own:
                try:
                    await conn.rollback()
                except Exception:
                    pass
            raise

    async def _query(self, sql: str, params: List[Any]) -> Optional[str]:
        row = await self._statement(sql, params, True)
        return None if row is None else row[0]

    async def _execute(self, sql: str, params: List[Any]) -> int:
        return int(await self._statement(sql, params, False))

    async def load(self, id: str, time: StoreTime) -> Optional[str]:
        """``PostgresClaimStore.load``, awaited."""
        return await self._statements.load(id, time)

    async def compare_and_set(self, id: str, expected: Optional[str], new: Optional[str],
                              time: StoreTime) -> bool:
        """``PostgresClaimStore.compare_and_set``, awaited."""
        return await self._statements.compare_and_set(id, expected, new, time)

    def __repr__(self) -> str:
        return "AsyncPostgresClaimStore(lease_ms=%d, window_ms=%r)" % (self.lease_ms,
                                                                       self.window_ms)


def _run(pg: Any, conn: Any, task: Any, own: bool) -> ClaimOutcome:
    try:
        with pg.RawCursor(conn, row_factory=pg.rows.tuple_row) as cur:
            def query(sql: str, params: List[Any]) -> Optional[str]:
                cur.execute(sql, params)
                row = cur.fetchone()
                return None if row is None else row[0]

            def execute(sql: str, params: List[Any]) -> int:
                cur.execute(sql, params)
                return int(cur.rowcount)

            return drive(task, StatementStore(_SQL, _int8(pg), query, execute),
                         conn.commit if own else None)
    except BaseException:
        if own:
            _quietly(conn.rollback)
        raise


async def _run_async(pg: Any, conn: Any, task: Any, own: bool) -> ClaimOutcome:
    try:
        async with pg.AsyncRawCursor(conn, row_factory=pg.rows.tuple_row) as cur:
            async def query(sql: str, params: List[Any]) -> Optional[str]:
                await cur.execute(sql, params)
                row = await cur.fetchone()
                return None if row is None else row[0]

            async def execute(sql: str, params: List[Any]) -> int:
                await cur.execute(sql, params)
                return int(cur.rowcount)

            return await drive_async(task, AsyncStatementStore(_SQL, _int8(pg), query, execute),
                                     conn.commit if own else None)
    except BaseException:
        if own:
            try:
                await conn.rollback()
            except Exception:
                pass
        raise


def _quietly(fn: Any) -> None:
    try:
        fn()
    except Exception:
        pass


def migrate(conn: "psycopg.Connection[Any]") -> None:
    """Runs ``MIGRATION`` on ``conn`` (creates the table and its index when missing; commits
    unless ``conn`` is inside your open transaction). psycopg's errors as they are."""
    pg = _sync(conn)
    own = _own_transaction(pg, conn)
    try:
        # One simple query (no parameters): its statements run as one transaction, so the lock
        # is held until the table exists (inside your transaction, until yours ends).
        conn.execute(MIGRATION_LOCK + ";\n" + MIGRATION)
        if own:
            conn.commit()
    except BaseException:
        if own:
            _quietly(conn.rollback)
        raise


async def migrate_async(conn: "psycopg.AsyncConnection[Any]") -> None:
    """``migrate`` on an ``AsyncConnection``."""
    pg = _async(conn)
    own = _own_transaction(pg, conn)
    try:
        await conn.execute(MIGRATION_LOCK + ";\n" + MIGRATION)
        if own:
            await conn.commit()
    except BaseException:
        if own:
            try:
                await conn.rollback()
            except Exception:
                pass
        raise


def purge(conn: "psycopg.Connection[Any]", now_ms: int) -> int:
    """Deletes the rows expired at ``now_ms`` (no step sees them already); the number deleted.
    Run it from one instance now and then (every few minutes or hours), passing your clock minus
    the skew you allow between hosts, so that no host's live claim goes. Raises ``StoreError``
    (``STORE_UNAVAILABLE``) when the statement fails."""
    pg = _sync(conn)
    now = now_ms_param(now_ms)
    own = _own_transaction(pg, conn)
    try:
        with pg.RawCursor(conn) as cur:
            cur.execute(PURGE, [_int8(pg)(now)])
            n = int(cur.rowcount)
        if own:
            conn.commit()
        return n
    except pg.Error as e:
        if own:
            _quietly(conn.rollback)
        raise StoreError("STORE_UNAVAILABLE", "postgres: purge: %s" % e) from e


async def purge_async(conn: "psycopg.AsyncConnection[Any]", now_ms: int) -> int:
    """``purge`` on an ``AsyncConnection``."""
    pg = _async(conn)
    now = now_ms_param(now_ms)
    own = _own_transaction(pg, conn)
    try:
        async with pg.AsyncRawCursor(conn) as cur:
            await cur.execute(PURGE, [_int8(pg)(now)])
            n = int(cur.rowcount)
        if own:
            await conn.commit()
        return n
    except pg.Error as e:
        if own:
            try:
                await conn.rollback()
            except Exception:
                pass
        raise StoreError("STORE_UNAVAILABLE", "postgres: purge: %s" % e) from e

