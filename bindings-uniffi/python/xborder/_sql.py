"""What ``xborder.postgres`` and ``xborder.sqlite`` share: core's ``ClaimTask`` driven against
one table, ``xborder_claims`` (entry texts and their expiry in ms), one SQL statement per load and
per compare-and-set. The statements and the table are the Rust crate's (stores/sql), so Rust,
Node and Python instances can share one table. Every decision is core's; the statements keep
texts and apply a change only when the row is still the one loaded."""

from typing import Any, Awaitable, Callable, List, NamedTuple, Optional, Tuple

from ._ffi import g
from .claims import (DEFAULT_LEASE_MS, ClaimOutcome, ClaimReply, ClaimTask, StoreTime, _reply_of,
                     _rules, _store_failed, _run_task, _run_task_async)
from . import _kinds

TABLE = "xborder_claims"


def migration(name: str) -> str:
    """The text of ``migrations/<name>`` shipped in the package (copied at build time from
    stores/sql/migrations/, the one source)."""
    try:
        from importlib.resources import files
    except ImportError:  # Python 3.8
        import os
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "migrations", name),
                  encoding="utf-8") as f:
            return f.read()
    return files(__package__ or "xborder").joinpath("migrations").joinpath(name).read_text(
        encoding="utf-8")


class Statements(NamedTuple):
    load: str
    insert: str
    update: str
    delete: str


Call = Tuple[str, List[Any]]
"""A statement and its parameters (id, entries, times)."""

Query = Callable[[str, List[Any]], Optional[str]]
"""Runs a load statement: the entry text of its row (None: no row)."""

Execute = Callable[[str, List[Any]], int]
"""Runs a write statement: the number of rows it changed."""


def _call(sql: Statements, id: str, expected: Optional[str], new: Optional[str],
          time: StoreTime, int8: Callable[[int], Any]) -> Optional[Call]:
    """The one statement of a compare-and-set, with core's times as given (None: nothing to
    write, ``(None, None)``: applied when there is no live row, a load tells)."""
    exp = None if time.expires_at_ms is None else int8(time.expires_at_ms)
    now = int8(time.now_ms)
    if expected is None and new is not None:
        return sql.insert, [id, new, exp, now]
    if expected is not None and new is not None:
        return sql.update, [id, expected, new, exp, now]
    if expected is not None:
        return sql.delete, [id, expected, now]
    return None


class StatementStore:
    """A ``ClaimStore`` made of the table's statements, over ``query`` and ``execute`` (a
    cursor's, a connection's): a load is ``LOAD`` at ``time.now_ms``; a compare-and-set is one
    ``INSERT``, ``UPDATE`` or ``DELETE`` writing ``time.expires_at_ms`` as the row's expiry."""

    __slots__ = ("_sql", "_int8", "_query", "_execute")

    def __init__(self, sql: Statements, int8: Callable[[int], Any], query: Query,
                 execute: Execute) -> None:
        self._sql, self._int8, self._query, self._execute = sql, int8, query, execute

    def load(self, id: str, time: StoreTime) -> Optional[str]:
        return _text(self._query(self._sql.load, [id, self._int8(time.now_ms)]))

    def compare_and_set(self, id: str, expected: Optional[str], new: Optional[str],
                        time: StoreTime) -> bool:
        call = _call(self._sql, id, expected, new, time, self._int8)
        if call is None:
            return self.load(id, time) is None
        return self._execute(*call) == 1


class AsyncStatementStore:
    """``StatementStore`` over coroutine functions (an ``AsyncClaimStore``)."""

    __slots__ = ("_sql", "_int8", "_query", "_execute")

    def __init__(self, sql: Statements, int8: Callable[[int], Any],
                 query: Callable[[str, List[Any]], Awaitable[Optional[str]]],
                 execute: Callable[[str, List[Any]], Awaitable[int]]) -> None:
        self._sql, self._int8, self._query, self._execute = sql, int8, query, execute

    async def load(self, id: str, time: StoreTime) -> Optional[str]:
        return _text(await self._query(self._sql.load, [id, self._int8(time.now_ms)]))

    async def compare_and_set(self, id: str, expected: Optional[str], new: Optional[str],
                              time: StoreTime) -> bool:
        call = _call(self._sql, id, expected, new, time, self._int8)
        if call is None:
            return await self.load(id, time) is None
        return await self._execute(*call) == 1


def drive(task: ClaimTask, store: StatementStore,
          finish: Optional[Callable[[], None]] = None) -> ClaimOutcome:
    """Runs ``task`` against ``store`` (the package's one loop); ``finish`` (the commit of a
    transaction the step opened) runs at the end. Any exception but core's is ``StoreError``
    (``STORE_UNAVAILABLE``), the exception as ``__cause__``."""
    outcome = _run_task(task, store, "sql")
    if finish is not None:
        try:
            finish()
        except Exception as e:
            _store_failed(task, "commit", e)
    return outcome


async def drive_async(task: ClaimTask, store: AsyncStatementStore,
                      finish: Optional[Callable[[], Awaitable[None]]] = None) -> ClaimOutcome:
    """``drive`` with coroutines."""
    outcome = await _run_task_async(task, store, "sql")
    if finish is not None:
        try:
            await finish()
        except Exception as e:
            _store_failed(task, "commit", e)
    return outcome


class SqlStore:
    """What the SQL stores of one connection share: the rules of the claims they came from
    (``handle_delivery`` takes the lease and window from them)."""

    __slots__ = ("lease_ms", "window_ms")

    def __init__(self, claims: "SqlClaims") -> None:
        self.lease_ms = claims.lease_ms
        self.window_ms = claims.window_ms


def _text(value: object) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    raise TypeError("the entry column holds %s, not text" % type(value).__name__)


class SqlClaims:
    """The rules (lease, window) of an SQL claim store; each call takes the connection."""

    __slots__ = ("_lease_ms", "_window_ms", "_rules")

    def __init__(self, lease_ms: int = DEFAULT_LEASE_MS, window_ms: Optional[int] = None) -> None:
        _rules(lease_ms, window_ms)
        self._lease_ms, self._window_ms = lease_ms, window_ms
        # Core's replies need the rules (the lease is the Retry-After of in_progress).
        self._rules: Any = g.Claims(lease_ms, window_ms, 0)

    @property
    def lease_ms(self) -> int:
        """How long a claim holds an id."""
        return self._lease_ms

    @property
    def window_ms(self) -> Optional[int]:
        """How long a done id stays a duplicate (None: core's default, 7 days)."""
        return self._window_ms

    def reply(self, step: str, outcome: ClaimOutcome) -> Optional[ClaimReply]:
        """What to answer after ``step`` gave ``outcome`` (None after ``claimed``: persist
        first): core's status and ``Retry-After`` (the lease, for ``in_progress``)."""
        return _reply_of(self._rules, step, outcome)

    def _task(self, step: str, id: str, token: str, at_ms: int) -> ClaimTask:
        return ClaimTask(step, id, token, at_ms, self._lease_ms, self._window_ms)

    def __repr__(self) -> str:
        return "%s(lease_ms=%d, window_ms=%r)" % (type(self).__name__, self._lease_ms,
                                                  self._window_ms)



def now_ms_param(now_ms: object) -> int:
    """``purge``'s ``now_ms``, checked (an int the column's type holds; the statement takes it
    as given)."""
    return _kinds.integer(now_ms, "now_ms", hi=(1 << 63) - 1)  # the column's bigint
