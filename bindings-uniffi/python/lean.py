"""Appends runtime.py (leaner call and buffer helpers) to uniffi's generated Python module.

runtime.py says what it replaces and why (the crossing cost of issue 16). This script refuses
to append it to a module it does not fit, so a uniffi upgrade that changes the helpers fails
the build instead of leaving a half-replaced runtime:

- every name runtime.py replaces or uses must be defined by the generated module;
- every method of uniffi's buffer stream and buffer builder must exist in runtime.py's (a new
  `read_xxx` in uniffi would otherwise be missing after the swap), but for private helpers
  that nothing outside their class calls;
- the buffer and foreign-bytes structures must have the layout runtime.py assumes.

Usage: python3 lean.py path/to/xborder.py   (after harden.py, before package.py)
"""
import ast
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from rewrite import rewrite  # noqa: E402  (bindings-uniffi/rewrite.py)

HERE = os.path.dirname(os.path.abspath(__file__))
MARK = "_xb_install_fast_runtime"

# What runtime.py takes from the generated module (top-level names).
NEEDED = ["_UniffiRustCallStatus", "_UniffiRustBuffer", "_UniffiLib", "_uniffi_check_call_status",
          "_uniffi_rust_call_with_error", "_uniffi_rust_call", "_UniffiRustBufferStream",
          "_UniffiRustBufferBuilder", "_UniffiConverterRustBuffer", "_UniffiFfiConverterString",
          "InternalError"]
# Text the generated module must contain, as runtime.py relies on it.
LAYOUT = [
    # RustBuffer: capacity, len, data (read by slicing `data[:len]`)
    '("capacity", ctypes.c_uint64),\n        ("len", ctypes.c_uint64),\n'
    '        ("data", ctypes.POINTER(ctypes.c_char)),',
    # ForeignBytes: int32 length, then the pointer (runtime.py's `Bytes` has the same layout)
    '("len", ctypes.c_int32),\n        ("data", ctypes.POINTER(ctypes.c_char)),',
    "_UniffiLib.ffi_xborder_ffi_rustbuffer_from_bytes.argtypes = (\n    _UniffiForeignBytes,\n"
    "    ctypes.POINTER(_UniffiRustCallStatus),\n)",
    "_UniffiLib.ffi_xborder_ffi_rustbuffer_from_bytes.restype = _UniffiRustBuffer",
    # The RustBuffer helpers runtime.py replaces
    "def consume_with_stream(self):", "def read_with_stream(self):",
    "def alloc_with_builder(*args):",
]


def methods(tree, cls):
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            return {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    return None


def inner_methods(tree, cls):
    """Methods of a class defined inside runtime.py's installer function."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            return {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    return None


def check(generated, runtime):
    problems = []
    gen = ast.parse(generated)
    top = {n.name for n in gen.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    top |= {t.id for n in gen.body if isinstance(n, ast.Assign) for t in n.targets
            if isinstance(t, ast.Name)}
    problems += ["the generated module defines no %s" % n for n in NEEDED if n not in top]
    problems += ["the generated module lacks %r" % t for t in LAYOUT if t not in generated]
    run = ast.parse(runtime)
    for theirs, ours in (("_UniffiRustBufferStream", "Stream"), ("_UniffiRustBufferBuilder", "Builder")):
        missing = (methods(gen, theirs) or set()) - (inner_methods(run, ours) or set())
        # A private helper may go if nothing outside its own class calls it.
        cls_src = next(ast.get_source_segment(generated, n) for n in gen.body
                       if isinstance(n, ast.ClassDef) and n.name == theirs)
        missing = {m for m in missing if not m.startswith("_")
                   or generated.count("." + m + "(") > cls_src.count("." + m + "(")}
        if missing:
            problems.append("%s has %s, which runtime.py's %s lacks"
                            % (theirs, ", ".join(sorted(missing)), ours))
    return problems


def transform(text, path):
    with open(os.path.join(HERE, "runtime.py"), encoding="utf-8") as f:
        runtime = f.read()
    problems = check(text, runtime)
    if problems:
        raise SystemExit("lean.py: the generated module changed; update runtime.py:\n  "
                         + "\n  ".join(problems))
    text = text.rstrip("\n") + "\n\n\n# --- xborder: bindings-uniffi/python/runtime.py ---\n" + runtime
    compile(text, path, "exec")
    return text, "call and buffer helpers replaced (runtime.py)"


def main():
    rewrite("lean.py", MARK, "already has the lean runtime", transform)


if __name__ == "__main__":
    main()
