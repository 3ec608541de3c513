"""A leaner runtime for uniffi's generated Python module: appended to it by lean.py.

This file is a fragment of the generated module (it uses the module's globals), never imported
on its own. It replaces uniffi's generic helpers for calls and buffers with ones of the same
behaviour and fewer steps, because in CPython every step costs: a ctypes call that passes or
returns a structure costs about 2 µs here, and uniffi's helpers took four of them per call
(allocate a buffer, grow it, call, free the answer) plus three generator-based context managers
and a ctypes slice per field read. Measured on `classify_event` (tests/bench/python/bench.py):
about 25 µs before, about 9 µs after. What changes:

- a call: one status structure, the error path only when the status says so;
- an argument buffer: written into a Python `bytearray`, handed to Rust in one call
  (`rustbuffer_from_bytes`), instead of allocate + reserve + one `memmove` per field;
- an answer buffer: copied out once (one slice of the pointer), freed at once, then read from
  Python `bytes` with `struct.unpack_from`;
- context managers: small classes instead of `contextlib` generators.

The interface (class names, method names, the errors raised on a short or over-long buffer) is
uniffi's; lean.py refuses to append this to a module whose helpers have methods this file lacks.
"""


def _xb_install_fast_runtime():
    g = globals()
    _unpack_from = struct.unpack_from
    _pack = struct.pack
    _byref = ctypes.byref
    Status = _UniffiRustCallStatus
    RB = _UniffiRustBuffer
    class Bytes(ctypes.Structure):
        # uniffi's ForeignBytes with the pointer typed as c_char_p, so a bytes object is
        # passed without a cast (same layout: int32 length, data pointer).
        _fields_ = [("len", ctypes.c_int32), ("data", ctypes.c_char_p)]

    # Our own function object (indexing the library makes a new one): uniffi's keeps its types.
    _from_bytes = _UniffiLib["ffi_xborder_ffi_rustbuffer_from_bytes"]
    _from_bytes.argtypes = (Bytes, ctypes.POINTER(Status))
    _from_bytes.restype = RB
    _free = _UniffiLib.ffi_xborder_ffi_rustbuffer_free
    _check = _uniffi_check_call_status

    def call_with_error(error_ffi_converter, fn, *args):
        status = Status()
        result = fn(*args, _byref(status))
        if status.code:
            _check(error_ffi_converter, status)
        return result

    def call(fn, *args):
        status = Status()
        result = fn(*args, _byref(status))
        if status.code:
            _check(None, status)
        return result

    def from_bytes(data):
        n = len(data)
        if n > 0x7FFFFFFF:
            raise ValueError("a value of %d bytes is larger than the 2 GiB a call can carry" % n)
        status = Status()
        rbuf = _from_bytes(Bytes(n, data if n else None), _byref(status))
        if status.code:
            _check(None, status)
        return rbuf

    def take(rbuf):
        """The bytes of a buffer Rust handed over, copied once; the buffer is freed."""
        n = rbuf.len
        data = rbuf.data[:n] if n else b""
        status = Status()
        _free(rbuf, _byref(status))
        if status.code:
            _check(None, status)
        return data

    class Stream:
        __slots__ = ("data", "len", "offset")

        def __init__(self, data, length=None):
            self.data = data
            self.len = len(data) if length is None else length
            self.offset = 0

        @classmethod
        def from_rust_buffer(cls, buf):
            return cls(buf.data[:buf.len] if buf.len else b"")

        def remaining(self):
            return self.len - self.offset

        def _unpack_from(self, size, format):
            off = self.offset
            if off + size > self.len:
                raise InternalError("read past end of rust buffer")
            self.offset = off + size
            return _unpack_from(format, self.data, off)[0]

        def read(self, size):
            off = self.offset
            if off + size > self.len:
                raise InternalError("read past end of rust buffer")
            self.offset = off + size
            return self.data[off:off + size]

        def read_i8(self): return self._unpack_from(1, ">b")
        def read_u8(self): return self._unpack_from(1, ">B")
        def read_i16(self): return self._unpack_from(2, ">h")
        def read_u16(self): return self._unpack_from(2, ">H")
        def read_i32(self): return self._unpack_from(4, ">i")
        def read_u32(self): return self._unpack_from(4, ">I")
        def read_i64(self): return self._unpack_from(8, ">q")
        def read_u64(self): return self._unpack_from(8, ">Q")
        def read_float(self): return self._unpack_from(4, ">f")
        def read_double(self): return self._unpack_from(8, ">d")

    class Builder:
        """Writes into a Python bytearray; `finalize` hands Rust one buffer (one call)."""
        __slots__ = ("buf",)

        def __init__(self):
            self.buf = bytearray()

        def finalize(self):
            buf, self.buf = self.buf, None
            return from_bytes(bytes(buf))

        def discard(self):
            self.buf = None

        def write(self, value):
            self.buf += value

        def write_i8(self, v): self.buf += _pack(">b", v)
        def write_u8(self, v): self.buf += _pack(">B", v)
        def write_i16(self, v): self.buf += _pack(">h", v)
        def write_u16(self, v): self.buf += _pack(">H", v)
        def write_i32(self, v): self.buf += _pack(">i", v)
        def write_u32(self, v): self.buf += _pack(">I", v)
        def write_i64(self, v): self.buf += _pack(">q", v)
        def write_u64(self, v): self.buf += _pack(">Q", v)
        def write_float(self, v): self.buf += _pack(">f", v)
        def write_double(self, v): self.buf += _pack(">d", v)
        def write_c_size_t(self, v): self.buf += _pack("@N", v)

    class Consume:
        __slots__ = ("stream",)

        def __init__(self, rbuf):
            self.stream = Stream(take(rbuf))

        def __enter__(self):
            return self.stream

        def __exit__(self, et, ev, tb):
            if et is None and self.stream.remaining() != 0:
                raise RuntimeError("junk data left in buffer at end of consume_with_stream %d"
                                   % self.stream.remaining())
            return False

    class Borrow(Consume):
        __slots__ = ()

        def __init__(self, rbuf):
            self.stream = Stream.from_rust_buffer(rbuf)

    class AllocWithBuilder:
        __slots__ = ("builder",)

        def __enter__(self):
            self.builder = Builder()
            return self.builder

        def __exit__(self, et, ev, tb):
            if et is not None:
                self.builder.discard()
            return False

    def lift_rb(cls, rbuf):
        s = Stream(take(rbuf))
        value = cls.read(s)
        if s.offset != s.len:
            raise RuntimeError("junk data left in buffer at end of consume_with_stream %d"
                               % (s.len - s.offset))
        return value

    def lower_rb(cls, value):
        b = Builder()
        cls.write(value, b)
        return b.finalize()

    def string_lift(buf):
        return take(buf).decode("utf-8")

    def string_lower(value):
        return from_bytes(value.encode("utf-8"))

    g["_uniffi_rust_call_with_error"] = call_with_error
    g["_uniffi_rust_call"] = call
    g["_UniffiRustBufferStream"] = Stream
    g["_UniffiRustBufferBuilder"] = Builder
    RB.consume_with_stream = lambda self: Consume(self)
    RB.read_with_stream = lambda self: Borrow(self)
    RB.alloc_with_builder = staticmethod(lambda *a: AllocWithBuilder())
    _UniffiConverterRustBuffer.lift = classmethod(lift_rb)
    _UniffiConverterRustBuffer.lower = classmethod(lower_rb)
    _UniffiFfiConverterString.lift = staticmethod(string_lift)
    _UniffiFfiConverterString.lower = staticmethod(string_lower)


_xb_install_fast_runtime()
del _xb_install_fast_runtime
