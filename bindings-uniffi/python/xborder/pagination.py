"""Lists: the query of a list call (``list_query``), what a page says (``page_info``), and
every page of a list (``PageWalker``). Every rule is core's."""

import json
from dataclasses import dataclass
from typing import Any, List, Optional

from . import _kinds
from ._ffi import GeneratedError, g
from ._kinds import JsonInput
from .errors import _raise


@dataclass(frozen=True)
class PageRequest:
    """The page and page size a list call asked for (None: the server's default); checked by
    core when used (``INVALID_PAGE``, ``INVALID_PAGE_SIZE``)."""

    page: Optional[int] = None
    page_size: Optional[int] = None

    def __post_init__(self) -> None:
        _kinds.opt_integer(self.page, "page")
        _kinds.opt_integer(self.page_size, "page_size")


@dataclass
class PageInfo:
    """What a list response says about its page."""

    total: int
    page: int
    page_size: int
    total_pages: int
    has_next: bool
    has_next_conflict: bool
    has_previous: bool
    first_item: int
    last_item: int
    next_page: Optional[int]


@dataclass
class Drift:
    """The list changed while walked: ``code`` (``TOTAL_CHANGED``, ``REPEATED_RECORDS``,
    ``HAS_NEXT_CONFLICT``, ``POSSIBLY_SKIPPED``, ``STALLED``) and the numbers of that code."""

    code: str
    previous_total: Optional[int]
    total: Optional[int]
    count: Optional[int]
    has_next: Optional[bool]


@dataclass
class WalkStep:
    """One page fed to a ``PageWalker``: the records it passes on (``records``: Python values;
    ``records_json``: their JSON texts), the page's ``info`` and any ``drifts``."""

    records_json: List[str]
    info: PageInfo
    drifts: List[Drift]

    @property
    def records(self) -> List[Any]:
        """This page's records as Python values."""
        return [json.loads(r) for r in self.records_json]


def _info(i: Any) -> PageInfo:
    return PageInfo(i.total, i.page, i.page_size, i.total_pages, i.has_next, i.has_next_conflict,
                    i.has_previous, i.first_item, i.last_item, i.next_page)


def list_query(params_json: JsonInput) -> str:
    """The query string of a list call (``page=0&pageSize=25&status=success``) from its
    parameters (a dict or JSON text; endpoint filters under ``"filters"``). Raises
    ``PaginationError``."""
    params = _kinds.json_text(params_json, "params_json")
    try:
        text: str = g.list_query(params)
    except GeneratedError as e:
        _raise(e)
    return text


def page_info(response_json: JsonInput, request: Optional[PageRequest] = None) -> PageInfo:
    """What a list response (a dict or its JSON text) says about its page; ``request``: what was
    asked for, when known."""
    response = _kinds.json_text(response_json, "response_json")
    req = _kinds.opt_instance(request, PageRequest, "request", "a PageRequest")
    try:
        return _info(g.page_info(response, None if req is None else
                                 g.PageRequest(page=req.page, page_size=req.page_size)))
    except GeneratedError as e:
        _raise(e)


class PageWalker:
    """Every page of a list: ``next_query()`` says which query to send (None: done), ``feed``
    takes the response and passes each record once."""

    __slots__ = ("_inner",)

    def __init__(self, params_json: JsonInput) -> None:
        params = _kinds.json_text(params_json, "params_json")
        try:
            self._inner: Any = g.PageWalker(params)
        except GeneratedError as e:
            _raise(e)

    def next_query(self) -> Optional[str]:
        query: Optional[str] = self._inner.next_query()
        return query

    def is_done(self) -> bool:
        return bool(self._inner.is_done())

    def feed(self, response_json: JsonInput) -> WalkStep:
        """The response to the last query (a dict or its JSON text)."""
        response = _kinds.json_text(response_json, "response_json")
        try:
            s = self._inner.feed(response)
        except GeneratedError as e:
            _raise(e)
        return WalkStep(list(s.records_json), _info(s.info),
                        [Drift(d.code, d.previous_total, d.total, d.count, d.has_next)
                         for d in s.drifts])

    def __repr__(self) -> str:
        return "PageWalker(done=%s)" % self.is_done()
