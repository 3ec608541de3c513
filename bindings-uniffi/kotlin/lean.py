"""Makes uniffi's generated Kotlin reuse its call-status structures (issue 16's crossing cost).

uniffi's Kotlin makes a new `UniffiRustCallStatus` for every foreign call (three per call that
takes a text: allocate its buffer, the call, free the answer). It is a JNA `Structure` holding
another (`RustBuffer`), and JNA builds each by reflection (`getDeclaredFields`, copied per
instance) with native `Memory` released by a cleaner thread: about 19 KB of garbage and most
of the 44 µs that `classifyEvent` cost on the JVM (JMH's GC profiler; JFR's allocation samples
point at `Structure.<init>`). This script rewrites the one helper every call goes through,
`uniffiRustCallWithError`, to take a status from a per-thread pool and give it back, reset,
when the call is checked:

- per thread, because a status is filled by the call and read right after it on the same
  thread (a coroutine does not move between threads inside a call);
- a pool rather than one status, because a call can re-enter: Rust calling a store written in
  Kotlin that itself calls Rust takes a second status while the first is in use;
- reset in `finally` (code 0, an empty error buffer), so an error's buffer, already lifted and
  freed by the error handler, is never seen by the next call.

It refuses to write a file whose helper is not the one it knows, so a uniffi upgrade fails the
build rather than losing (or half-applying) the change. The JVM tests (JavaApiTest's
`reusedCallStatus`) drive errors, re-entrant store calls and threads through it.

Usage: python3 lean.py path/to/xborder.kt
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from rewrite import rewrite  # noqa: E402  (bindings-uniffi/rewrite.py)

MARK = "uniffiXbStatusPool"

ORIGINAL = '''private inline fun <U, E: kotlin.Exception> uniffiRustCallWithError(errorHandler: UniffiRustCallStatusErrorHandler<E>, callback: (UniffiRustCallStatus) -> U): U {
    var status = UniffiRustCallStatus()
    val return_value = callback(status)
    uniffiCheckCallStatus(errorHandler, status)
    return return_value
}'''

POOLED = '''private inline fun <U, E: kotlin.Exception> uniffiRustCallWithError(errorHandler: UniffiRustCallStatusErrorHandler<E>, callback: (UniffiRustCallStatus) -> U): U {
    // xborder (bindings-uniffi/kotlin/lean.py): a status from this thread's pool, given back
    // reset, instead of a new JNA Structure per call.
    val pool = uniffiXbStatusPool.get()
    val status = pool.pollLast() ?: UniffiRustCallStatus()
    try {
        val return_value = callback(status)
        uniffiCheckCallStatus(errorHandler, status)
        return return_value
    } finally {
        status.code = UNIFFI_CALL_SUCCESS
        status.error_buf.capacity = 0
        status.error_buf.len = 0
        status.error_buf.data = null
        pool.addLast(status)
    }
}

// Per thread; as deep as calls re-enter (Rust -> a Kotlin store -> Rust), so one or two.
private val uniffiXbStatusPool: ThreadLocal<java.util.ArrayDeque<UniffiRustCallStatus>> =
    ThreadLocal.withInitial { java.util.ArrayDeque<UniffiRustCallStatus>() }'''

# What the pooled helper relies on in the generated file.
NEEDED = [
    '@Structure.FieldOrder("code", "error_buf")\ninternal open class UniffiRustCallStatus : Structure() {\n'
    '    @JvmField var code: Byte = 0\n    @JvmField var error_buf: RustBuffer.ByValue = RustBuffer.ByValue()',
    '@JvmField var capacity: Long = 0\n    @JvmField var len: Long = 0\n    @JvmField var data: Pointer? = null',
    "internal const val UNIFFI_CALL_SUCCESS = 0.toByte()",
]


def transform(text, path):
    missing = [n for n in NEEDED if n not in text]
    if text.count(ORIGINAL) != 1 or missing:
        raise SystemExit("kotlin/lean.py: the generated Kotlin changed (uniffiRustCallWithError found %d "
                         "times, want 1; missing: %r): update lean.py" % (text.count(ORIGINAL), missing))
    if text.count("= UniffiRustCallStatus()") != 1:
        raise SystemExit("kotlin/lean.py: a status is made somewhere else than uniffiRustCallWithError: "
                         "update lean.py")
    return text.replace(ORIGINAL, POOLED), "call statuses pooled per thread"


def main():
    rewrite("kotlin/lean.py", MARK, "already pools its call statuses", transform)


if __name__ == "__main__":
    main()
