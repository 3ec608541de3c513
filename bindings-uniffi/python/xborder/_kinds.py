"""The kind checks of the public API: every parameter is checked when a function is called or an
object is built, and a wrong one is a ``TypeError`` (wrong kind) or ``ValueError`` (right kind,
out of range) naming the parameter and what it takes. Never a silent conversion: a ``str`` is
never a list of strings, a ``bool`` never an int, a dict with non-``str`` keys never JSON.
Conversion only: what a value means is core's."""

import json
import math
from typing import AbstractSet, Any, Callable, List, Mapping, Optional, Sequence, Tuple, Union

U16 = (1 << 16) - 1
U32 = (1 << 32) - 1
U64 = (1 << 64) - 1

Strings = Union[List[str], Tuple[str, ...], AbstractSet[str]]
"""A list of str (a list, tuple or set; never a str, which is not split into items)."""
Body = Union[bytes, bytearray, memoryview, str]
"""A raw body: its bytes (any buffer: its raw bytes), or a ``str`` (its UTF-8 bytes)."""
JsonInput = Union[str, Mapping[str, Any], Sequence[Any]]
"""JSON data as Python values (a dict, a list), or its JSON text (a ``str``)."""
Document = Union[str, bytes, bytearray, memoryview, Mapping[str, Any], Sequence[Any]]
"""A server document as a client holds it: the response text, body or parsed JSON."""


def _got(value: object) -> str:
    return type(value).__name__


def string(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError("%s must be a str, got %s" % (name, _got(value)))
    return value


def opt_string(value: object, name: str) -> Optional[str]:
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError("%s must be a str or None, got %s" % (name, _got(value)))
    return value


def integer(value: object, name: str, hi: int = U64, lo: int = 0) -> int:
    """An int in [lo, hi]; a bool is not an int."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("%s must be an int >= %d, got %s" % (name, lo, _got(value)))
    if value < lo:
        raise ValueError("%s must be an int >= %d, got %d" % (name, lo, value))
    if value > hi:
        raise ValueError("%s must be an int from %d to %d, got %d" % (name, lo, hi, value))
    return int(value)


def opt_integer(value: object, name: str, hi: int = U64, lo: int = 0) -> Optional[int]:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("%s must be an int >= %d or None, got %s" % (name, lo, _got(value)))
    return integer(value, name, hi, lo)


def boolean(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError("%s must be a bool, got %s" % (name, _got(value)))
    return value


def strings(value: object, name: str, hint: str = "") -> List[str]:
    """A list of str: any sized, iterable collection of them, never text, bytes or a mapping."""
    how = "; " + hint if hint else ""
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        raise TypeError("%s must be a list of str, got %s (a %s is never split into items)%s"
                        % (name, _got(value), _got(value), how))
    if isinstance(value, Mapping) or hasattr(value, "keys"):
        raise TypeError("%s must be a list of str, got a mapping (%s)%s" % (name, _got(value), how))
    if not hasattr(value, "__len__") or not hasattr(value, "__iter__"):
        raise TypeError("%s must be a list of str, got %s%s" % (name, _got(value), how))
    out = list(value)
    for i, item in enumerate(out):
        if not isinstance(item, str):
            raise TypeError("%s must be a list of str, got %s at [%d]" % (name, _got(item), i))
    return out


def body(value: object, name: str = "body") -> bytes:
    """The raw bytes of a body: bytes as they are, a str as UTF-8, any buffer's raw bytes."""
    if type(value) is bytes:
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, bytes):
        return bytes(value)
    try:
        view = memoryview(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError("%s must be bytes, bytearray, memoryview or str (UTF-8), got %s"
                        % (name, _got(value))) from None
    return view.tobytes()


def instance(value: object, cls: type, name: str, what: str) -> Any:
    if not isinstance(value, cls):
        raise TypeError("%s must be %s, got %s" % (name, what, _got(value)))
    return value


def opt_instance(value: object, cls: type, name: str, what: str) -> Any:
    if value is None:
        return None
    if not isinstance(value, cls):
        raise TypeError("%s must be %s or None, got %s" % (name, what, _got(value)))
    return value


def function(value: Any, name: str, what: str) -> Callable[..., Any]:
    if not callable(value):
        raise TypeError("%s must be %s, got %s" % (name, what, _got(value)))
    fn: Callable[..., Any] = value
    return fn


# --- JSON ---------------------------------------------------------------------------------------

def _plain(value: object, name: str) -> None:
    """Checks that value is plain JSON data (iteratively: any depth); the error names the
    parameter and the path."""
    todo = [(value, "$")]
    while todo:
        value, where = todo.pop()
        if value is None or isinstance(value, (str, bool, int)):
            continue
        if isinstance(value, float):
            if not math.isfinite(value):
                raise ValueError("%s must be JSON data, got %r at %s (JSON has no such number)"
                                 % (name, value, where))
            continue
        if isinstance(value, Mapping):
            for k, v in value.items():
                if not isinstance(k, str):
                    raise TypeError("%s must be JSON data, got a %s key at %s (JSON would silently "
                                    "turn %r into a string)" % (name, _got(k), where, k))
                todo.append((v, "%s.%s" % (where, k)))
            continue
        if isinstance(value, (list, tuple)):
            todo.extend((v, "%s[%d]" % (where, i)) for i, v in enumerate(value))
            continue
        raise TypeError("%s must be JSON data (dict, list, str, int, float, bool, None), got %s "
                        "at %s" % (name, _got(value), where))


def _dumps(value: object, name: str, ensure_ascii: bool = False) -> str:
    _plain(value, name)
    try:
        return json.dumps(value if not isinstance(value, Mapping) or isinstance(value, dict)
                          else dict(value), ensure_ascii=ensure_ascii, allow_nan=False)
    except RecursionError:
        raise ValueError("%s is nested deeper than json.dumps can write: pass its JSON text"
                         % name) from None


def json_text(value: object, name: str) -> str:
    """A JSON parameter: a dict, a list or JSON text (a str, handed over as it is)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (Mapping, list, tuple)):
        return _dumps(value, name)
    raise TypeError("%s must be a dict, a list or JSON text, got %s" % (name, _got(value)))


# The text handed to core for a document whose text is not Unicode (bytes that are not UTF-8,
# a str holding lone surrogates). Such a document is not JSON text (RFC 8259 8.1: JSON exchanged
# is UTF-8) and cannot cross as a str; decoding it with errors="replace" would silently make it
# readable. Core gets a text it reads as it reads those bytes (not JSON) and says so with its
# own code (RULES_UNREADABLE / BANKS_UNREADABLE): U+FFFD alone, which is no JSON text.
_NOT_UNICODE = "\ufffd"


def _unicode(text: str) -> str:
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return _NOT_UNICODE
    return text


def document(value: object, name: str) -> Optional[str]:
    """A server document (rules document, bank list) as the caller holds it: None (not given),
    the response text (str), its body (bytes, bytearray, memoryview: UTF-8) or its parsed JSON
    (dict, list)."""
    if value is None:
        return None
    if isinstance(value, str):
        return _unicode(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        raw = value.tobytes() if isinstance(value, memoryview) else bytes(value)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return _NOT_UNICODE
    if isinstance(value, (Mapping, list, tuple)):
        text = _dumps(value, name)
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate in a str of the data: JSON escapes it
                return _dumps(value, name, ensure_ascii=True)
        return text
    raise TypeError("%s must be a dict, a list or JSON text (the response as text, bytes or "
                    "parsed JSON), or None when not given; got %s" % (name, _got(value)))
