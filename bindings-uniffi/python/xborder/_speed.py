"""SPEED MEASURE (issue 16, kept by issue 24): leaner call and buffer helpers for uniffi's
generated Python module, WRITTEN FOR uniffi 0.32.2 (``UNIFFI_VERSION``).

The generated module (``_xborder_ffi/xborder.py``) stays exactly as uniffi-bindgen writes
it. At import, ``install`` replaces a few of its runtime helpers by attribute assignment (no
text is rewritten): in CPython every step of a call costs, a ctypes call that passes or returns
a structure about 2 µs, and uniffi's helpers take four of them per call (allocate a buffer, grow
it, call, free the answer) plus generator-based context managers and a ctypes slice per field
read. ``classify_event`` costs about 20 µs without this module and about 6 µs with it
(``tests/bench/BENCHMARKS.md``, "Python"; ``XBORDER_PYTHON_SPEED=0`` imports the package
without it, to measure). What changes, with uniffi's behaviour:

- a call: one status structure, the error path only when the status says so;
- an argument buffer: written into a ``bytearray``, handed to Rust in one call
  (``rustbuffer_from_bytes``) instead of allocate + reserve + one ``memmove`` per field;
- an answer buffer: copied out once, freed at once, read with ``struct.unpack_from``;
- context managers: small classes instead of ``contextlib`` generators.

``check(text)`` is run by ``bindings-uniffi/build.sh`` on the generated text (the build fails
with its message when uniffi's helpers are not the ones this was written for), and
``install`` checks the names again at import (an ``ImportError`` naming what is missing).
"""

import ast
import ctypes
import struct
from types import ModuleType
from typing import Any, Dict, List, Optional, Set

UNIFFI_VERSION = "0.32.2"

# What install() takes from, or replaces in, the generated module (top-level names).
NEEDED = ["_UniffiRustCallStatus", "_UniffiRustBuffer", "_UniffiLib", "_uniffi_check_call_status",
          "_uniffi_rust_call_with_error", "_uniffi_rust_call", "_UniffiRustBufferStream",
          "_UniffiRustBufferBuilder", "_UniffiConverterRustBuffer", "_UniffiFfiConverterString",
          "InternalError"]
# Text the generated module must contain, as install() relies on it.
LAYOUT = [
    # RustBuffer: capacity, len, data (read by slicing `data[:len]`)
    '("capacity", ctypes.c_uint64),\n        ("len", ctypes.c_uint64),\n'
    '        ("data", ctypes.POINTER(ctypes.c_char)),',
    # ForeignBytes: int32 length, then the pointer (`_Bytes` below has the same layout)
    '("len", ctypes.c_int32),\n        ("data", ctypes.POINTER(ctypes.c_char)),',
    "_UniffiLib.ffi_xborder_ffi_rustbuffer_from_bytes.argtypes = (\n    _UniffiForeignBytes,\n"
    "    ctypes.POINTER(_UniffiRustCallStatus),\n)",
    "_UniffiLib.ffi_xborder_ffi_rustbuffer_from_bytes.restype = _UniffiRustBuffer",
    # The RustBuffer helpers install() replaces
    "def consume_with_stream(self):", "def read_with_stream(self):",
    "def alloc_with_builder(*args):",
    # A call: status, call, check (what call() below does in fewer steps)
    "    call_status = _UniffiRustCallStatus.default()\n\n"
    "    args_with_error = args + (ctypes.byref(call_status),)\n"
    "    result = fn(*args_with_error)\n"
    "    _uniffi_check_call_status(error_ffi_converter, call_status)\n"
    "    return result\n",
]
# The methods of uniffi's stream and builder that _Stream and _Builder below provide.
STREAM_METHODS = {"__init__", "from_rust_buffer", "remaining", "_unpack_from", "read", "read_i8",
                  "read_u8", "read_i16", "read_u16", "read_i32", "read_u32", "read_i64",
                  "read_u64", "read_float", "read_double"}
BUILDER_METHODS = {"__init__", "finalize", "discard", "write", "write_i8", "write_u8",
                   "write_i16", "write_u16", "write_i32", "write_u32", "write_i64", "write_u64",
                   "write_float", "write_double", "write_c_size_t"}


def _methods(tree: ast.Module, cls: str) -> Optional[Set[str]]:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            return {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    return None


def check(text: str) -> List[str]:
    """What in the generated module's text is not what this module was written for (empty:
    it fits). Run by the build."""
    problems = []
    tree = ast.parse(text)
    top = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    top |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
            if isinstance(t, ast.Name)}
    problems += ["the generated module defines no %s" % n for n in NEEDED if n not in top]
    problems += ["the generated module lacks %r" % t for t in LAYOUT if t not in text]
    for theirs, ours in (("_UniffiRustBufferStream", STREAM_METHODS),
                         ("_UniffiRustBufferBuilder", BUILDER_METHODS)):
        found = _methods(tree, theirs)
        if found is None:
            continue
        # A private helper may go if nothing outside its own class calls it.
        src = next(ast.get_source_segment(text, n) or "" for n in tree.body
                   if isinstance(n, ast.ClassDef) and n.name == theirs)
        missing = {m for m in found - ours if not m.startswith("_")
                   or text.count("." + m + "(") > src.count("." + m + "(")}
        if missing:
            problems.append("%s has %s, which _speed.py lacks" % (theirs, ", ".join(sorted(missing))))
    return problems


def install(g: ModuleType) -> None:
    """Replaces the generated module's call and buffer helpers (attribute assignment)."""
    missing = [n for n in NEEDED if not hasattr(g, n)]
    if missing:
        raise ImportError("xborder/_speed.py (written for uniffi %s): the generated module has no %s"
                          % (UNIFFI_VERSION, ", ".join(missing)))
    _unpack_from = struct.unpack_from
    _pack = struct.pack
    _byref = ctypes.byref
    Status: Any = g._UniffiRustCallStatus
    RB: Any = g._UniffiRustBuffer
    InternalError: Any = g.InternalError

    class _Bytes(ctypes.Structure):
        # uniffi's ForeignBytes with the pointer typed as c_char_p, so a bytes object is
        # passed without a cast (same layout: int32 length, data pointer).
        _fields_ = [("len", ctypes.c_int32), ("data", ctypes.c_char_p)]

    # Our own function object (indexing the library makes a new one): uniffi's keeps its types.
    _from_bytes = g._UniffiLib["ffi_xborder_ffi_rustbuffer_from_bytes"]
    _from_bytes.argtypes = (_Bytes, ctypes.POINTER(Status))
    _from_bytes.restype = RB
    _free = g._UniffiLib.ffi_xborder_ffi_rustbuffer_free
    _check = g._uniffi_check_call_status

    def call_with_error(error_ffi_converter: Any, fn: Any, *args: Any) -> Any:
        status = Status()
        result = fn(*args, _byref(status))
        if status.code:
            _check(error_ffi_converter, status)
        return result

    def call(fn: Any, *args: Any) -> Any:
        status = Status()
        result = fn(*args, _byref(status))
        if status.code:
            _check(None, status)
        return result

    def from_bytes(data: bytes) -> Any:
        n = len(data)
        if n > 0x7FFFFFFF:
            raise ValueError("a value of %d bytes is larger than the 2 GiB a call can carry" % n)
        status = Status()
        rbuf = _from_bytes(_Bytes(n, data if n else None), _byref(status))
        if status.code:
            _check(None, status)
        return rbuf

    def take(rbuf: Any) -> bytes:
        """The bytes of a buffer Rust handed over, copied once; the buffer is freed."""
        n = rbuf.len
        data: bytes = rbuf.data[:n] if n else b""
        status = Status()
        _free(rbuf, _byref(status))
        if status.code:
            _check(None, status)
        return data

    class _Stream:
        __slots__ = ("data", "len", "offset")

        def __init__(self, data: bytes, length: Optional[int] = None) -> None:
            self.data = data
            self.len = len(data) if length is None else length
            self.offset = 0

        @classmethod
        def from_rust_buffer(cls, buf: Any) -> "_Stream":
            return cls(buf.data[:buf.len] if buf.len else b"")

        def remaining(self) -> int:
            return self.len - self.offset

        def _unpack_from(self, size: int, format: str) -> Any:
            off = self.offset
            if off + size > self.len:
                raise InternalError("read past end of rust buffer")
            self.offset = off + size
            return _unpack_from(format, self.data, off)[0]

        def read(self, size: int) -> bytes:
            off = self.offset
            if off + size > self.len:
                raise InternalError("read past end of rust buffer")
            self.offset = off + size
            return self.data[off:off + size]

        def read_i8(self) -> int: return self._unpack_from(1, ">b")  # type: ignore[no-any-return]
        def read_u8(self) -> int: return self._unpack_from(1, ">B")  # type: ignore[no-any-return]
        def read_i16(self) -> int: return self._unpack_from(2, ">h")  # type: ignore[no-any-return]
        def read_u16(self) -> int: return self._unpack_from(2, ">H")  # type: ignore[no-any-return]
        def read_i32(self) -> int: return self._unpack_from(4, ">i")  # type: ignore[no-any-return]
        def read_u32(self) -> int: return self._unpack_from(4, ">I")  # type: ignore[no-any-return]
        def read_i64(self) -> int: return self._unpack_from(8, ">q")  # type: ignore[no-any-return]
        def read_u64(self) -> int: return self._unpack_from(8, ">Q")  # type: ignore[no-any-return]
        def read_float(self) -> float: return self._unpack_from(4, ">f")  # type: ignore[no-any-return]
        def read_double(self) -> float: return self._unpack_from(8, ">d")  # type: ignore[no-any-return]

    class _Builder:
        """Writes into a bytearray; `finalize` hands Rust one buffer (one call)."""
        __slots__ = ("buf",)

        def __init__(self) -> None:
            self.buf: Any = bytearray()

        def finalize(self) -> Any:
            buf, self.buf = self.buf, None
            return from_bytes(bytes(buf))

        def discard(self) -> None:
            self.buf = None

        def write(self, value: bytes) -> None:
            self.buf += value

        def write_i8(self, v: int) -> None: self.buf += _pack(">b", v)
        def write_u8(self, v: int) -> None: self.buf += _pack(">B", v)
        def write_i16(self, v: int) -> None: self.buf += _pack(">h", v)
        def write_u16(self, v: int) -> None: self.buf += _pack(">H", v)
        def write_i32(self, v: int) -> None: self.buf += _pack(">i", v)
        def write_u32(self, v: int) -> None: self.buf += _pack(">I", v)
        def write_i64(self, v: int) -> None: self.buf += _pack(">q", v)
        def write_u64(self, v: int) -> None: self.buf += _pack(">Q", v)
        def write_float(self, v: float) -> None: self.buf += _pack(">f", v)
        def write_double(self, v: float) -> None: self.buf += _pack(">d", v)
        def write_c_size_t(self, v: int) -> None: self.buf += _pack("@N", v)

    def junk(left: int) -> RuntimeError:
        return RuntimeError("junk data left in buffer at end of consume_with_stream %d" % left)

    class _Consume:
        __slots__ = ("stream",)

        def __init__(self, rbuf: Any) -> None:
            self.stream = _Stream(take(rbuf))

        def __enter__(self) -> _Stream:
            return self.stream

        def __exit__(self, et: Any, ev: Any, tb: Any) -> None:
            if et is None and self.stream.remaining() != 0:
                raise junk(self.stream.remaining())

    class _Borrow(_Consume):
        __slots__ = ()

        def __init__(self, rbuf: Any) -> None:
            self.stream = _Stream.from_rust_buffer(rbuf)

    class _AllocWithBuilder:
        __slots__ = ("builder",)

        def __enter__(self) -> _Builder:
            self.builder = _Builder()
            return self.builder

        def __exit__(self, et: Any, ev: Any, tb: Any) -> None:
            if et is not None:
                self.builder.discard()

    def lift_rb(cls: Any, rbuf: Any) -> Any:
        s = _Stream(take(rbuf))
        value = cls.read(s)
        if s.offset != s.len:
            raise junk(s.len - s.offset)
        return value

    def lower_rb(cls: Any, value: Any) -> Any:
        b = _Builder()
        cls.write(value, b)
        return b.finalize()

    def string_lift(buf: Any) -> str:
        return take(buf).decode("utf-8")

    def string_lower(value: str) -> Any:
        return from_bytes(value.encode("utf-8"))

    replaced: Dict[str, Any] = {
        "_uniffi_rust_call_with_error": call_with_error,
        "_uniffi_rust_call": call,
        "_UniffiRustBufferStream": _Stream,
        "_UniffiRustBufferBuilder": _Builder,
    }
    for name, value in replaced.items():
        setattr(g, name, value)
    RB.consume_with_stream = lambda self: _Consume(self)
    RB.read_with_stream = lambda self: _Borrow(self)
    RB.alloc_with_builder = staticmethod(lambda *a: _AllocWithBuilder())
    g._UniffiConverterRustBuffer.lift = classmethod(lift_rb)
    g._UniffiConverterRustBuffer.lower = classmethod(lower_rb)
    g._UniffiFfiConverterString.lift = staticmethod(string_lift)
    g._UniffiFfiConverterString.lower = staticmethod(string_lower)
