"""The generated module (``_xborder_ffi/xborder.py``, as uniffi writes it) and what the
hand-written layer takes from it in one place."""

import enum
import os
from typing import Any, Dict, Type

from _xborder_ffi import xborder as _generated

g: Any = _generated

if os.environ.get("XBORDER_PYTHON_SPEED", "1") != "0":
    from . import _speed

    _speed.install(g)

# uniffi declares the error enum twice (an Exception, then a namespace of its variants): the
# variants' base is the exception every failing call raises.
GeneratedError: Type[BaseException] = g.XborderError.Signature.__bases__[0]


def display(member: Any) -> str:
    """Core's text of a generated enum member (its Rust Display: FORMAT.md's words)."""
    name = type(member).__name__
    fn = getattr(g._UniffiLib, "uniffi_xborder_ffi_fn_method_%s_uniffi_trait_display" % name.lower())
    lower = getattr(g, "_UniffiFfiConverterType" + name).lower
    text: str = g._UniffiFfiConverterString.lift(g._uniffi_rust_call(fn, lower(member)))
    return text


_TEXTS: Dict[Any, str] = {}


class CoreEnum(enum.Enum):
    """A hand-written enum whose values are the generated module's members; ``str()`` is
    core's text of the member (FORMAT.md's), read once at import."""

    def __str__(self) -> str:
        return _TEXTS[self]

    def __repr__(self) -> str:
        return "<%s.%s: %r>" % (type(self).__name__, self.name, _TEXTS[self])


def texts(cls: Any) -> Dict[Any, str]:
    """Core's text of every member of a hand-written enum whose values are generated members."""
    found = {m: display(m.value) for m in cls}
    _TEXTS.update(found)
    return found


def same_members(ours: Any, theirs: Any) -> None:
    """A hand-written enum names every member of the generated one (and no other)."""
    a, b = {m.name for m in ours}, {m.name for m in theirs}
    if a != b:
        raise ImportError("xborder: %s differs from the generated enum: %s" % (
            ours.__name__, ", ".join(sorted(a ^ b))))
