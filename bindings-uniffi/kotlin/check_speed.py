"""Checks that the JVM package's speed measure fits the generated Kotlin (run by build.sh).

bindings-uniffi/jvm/src/main/kotlin/dev/xborder/internal/Speed.kt (SPEED MEASURE, labelled with
the uniffi version it was written for) calls the generated JNA functions itself, with pooled
call statuses, for the hot calls. It reads nothing but the generated code's own declarations, and
rewrites nothing; this check fails the build, with what no longer fits, when

- Cargo.lock's uniffi is not the version Speed.kt says it was written for (its header and
  `const val UNIFFI_VERSION`), or
- the generated xborder.kt lacks one of the declarations or bodies below, each of which Speed.kt
  relies on or reproduces (the Kotlin compiler checks names and types; this checks what they do).

Texts are compared with runs of white space collapsed to one space.

Usage: python3 check_speed.py path/to/generated/dev/xborder/ffi/xborder.kt
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SPEED = os.path.join(ROOT, "bindings-uniffi", "jvm", "src", "main", "kotlin", "dev", "xborder", "internal", "Speed.kt")

# (what Speed.kt relies on, the generated text that provides it)
NEEDED = [
    # The status: the code byte first (check() reads offset 0), then the error buffer.
    ("UniffiRustCallStatus's layout",
     '@Structure.FieldOrder("code", "error_buf") internal open class UniffiRustCallStatus : Structure() { '
     '@JvmField var code: Byte = 0 @JvmField var error_buf: RustBuffer.ByValue = RustBuffer.ByValue()'),
    ("RustBuffer's layout",
     '@Structure.FieldOrder("capacity", "len", "data") open class RustBuffer : Structure() {'),
    ("RustBuffer's fields",
     "@JvmField var capacity: Long = 0 @JvmField var len: Long = 0 @JvmField var data: Pointer? = null"),
    ("the status codes",
     "internal const val UNIFFI_CALL_SUCCESS = 0.toByte() internal const val UNIFFI_CALL_ERROR = 1.toByte() "
     "internal const val UNIFFI_CALL_UNEXPECTED_ERROR = 2.toByte()"),
    # What Speed replaces: a new status per crossing, checked after the call.
    ("uniffiRustCallWithError (a new status per crossing)",
     "private inline fun <U, E: kotlin.Exception> uniffiRustCallWithError(errorHandler: "
     "UniffiRustCallStatusErrorHandler<E>, callback: (UniffiRustCallStatus) -> U): U { "
     "var status = UniffiRustCallStatus() val return_value = callback(status) "
     "uniffiCheckCallStatus(errorHandler, status) return return_value }"),
    # What Speed.check reproduces.
    ("uniffiCheckCallStatus",
     "if (status.isSuccess()) { return } else if (status.isError()) { throw errorHandler.lift(status.error_buf) } "
     "else if (status.isPanic()) { // when the rust code sees a panic, it tries to construct a rustbuffer // with "
     "the message. but if that code panics, then it just sends back // an empty buffer. if (status.error_buf.len > 0) "
     "{ throw InternalException(FfiConverterString.lift(status.error_buf)) } else { throw InternalException(\"Rust "
     "panic\") } } else { throw InternalException(\"Unknown rust call status: $status.code\") }"),
    ("UniffiNullRustCallStatusErrorHandler",
     "object UniffiNullRustCallStatusErrorHandler: UniffiRustCallStatusErrorHandler<InternalException> { "
     "override fun lift(error_buf: RustBuffer.ByValue): InternalException { RustBuffer.free(error_buf) "
     "return InternalException(\"Unexpected CALL_ERROR\") } }"),
    ("XborderException's error handler",
     "companion object ErrorHandler : UniffiRustCallStatusErrorHandler<XborderException> { override fun "
     "lift(error_buf: RustBuffer.ByValue): XborderException = FfiConverterTypeXborderError.lift(error_buf) }"),
    # Buffers: what alloc, free, text, lower and lift reproduce.
    ("RustBuffer.alloc",
     "internal fun alloc(size: ULong = 0UL) = uniffiRustCall() { status -> // Note: need to convert the size to a "
     "`Long` value to make this work with JVM. UniffiLib.ffi_xborder_ffi_rustbuffer_alloc(size.toLong(), status) "
     "}.also { if(it.data == null) { throw RuntimeException(\"RustBuffer.alloc() returned null data pointer "
     "(size=${size})\") } }"),
    ("RustBuffer.free",
     "internal fun free(buf: RustBuffer.ByValue) = uniffiRustCall() { status -> "
     "UniffiLib.ffi_xborder_ffi_rustbuffer_free(buf, status) }"),
    ("FfiConverterString.toUtf8",
     "fun toUtf8(value: String): ByteBuffer { // Make sure we don't have invalid UTF-16, check for lone surrogates. "
     "return Charsets.UTF_8.newEncoder().run { onMalformedInput(CodingErrorAction.REPORT) "
     "encode(CharBuffer.wrap(value)) } }"),
    ("FfiConverterString.lower (UTF-8 bytes, no length)",
     "override fun lower(value: String): RustBuffer.ByValue { val byteBuf = toUtf8(value) // Ideally we'd pass these "
     "bytes to `ffi_bytebuffer_from_bytes`, but doing so would require us // to copy them into a JNA `Memory`. So we "
     "might as well directly copy them into a `RustBuffer`. val rbuf = RustBuffer.alloc(byteBuf.limit().toULong()) "
     "rbuf.asByteBuffer()!!.put(byteBuf) return rbuf }"),
    ("FfiConverter.lowerIntoRustBuffer",
     "fun lowerIntoRustBuffer(value: KotlinType): RustBuffer.ByValue { val rbuf = RustBuffer.alloc(allocationSize(value)) "
     "try { val bbuf = rbuf.data!!.getByteBuffer(0, rbuf.capacity).also { it.order(ByteOrder.BIG_ENDIAN) } "
     "write(value, bbuf) rbuf.writeField(\"len\", bbuf.position().toLong()) return rbuf } catch (e: Throwable) "
     "{ RustBuffer.free(rbuf) throw e } }"),
    ("FfiConverter.liftFromRustBuffer",
     "fun liftFromRustBuffer(rbuf: RustBuffer.ByValue): KotlinType { val byteBuf = rbuf.asByteBuffer()!! try { "
     "val item = read(byteBuf) if (byteBuf.hasRemaining()) { throw RuntimeException(\"junk remaining in buffer after "
     "lifting, something is very wrong!!\") } return item } finally { RustBuffer.free(rbuf) } }"),
    ("FfiConverterRustBuffer's lift and lower",
     "override fun lift(value: RustBuffer.ByValue) = liftFromRustBuffer(value) "
     "override fun lower(value: KotlinType) = lowerIntoRustBuffer(value)"),
    # The calls Speed makes itself: the same FFI function, converters and error handler.
    ("classifyEvent",
     "fun `classifyEvent`(`name`: kotlin.String): EventClassification { return "
     "FfiConverterTypeEventClassification.lift( uniffiRustCall() { _status -> "
     "UniffiLib.uniffi_xborder_ffi_fn_func_classify_event( FfiConverterString.lower(`name`),_status) } ) }"),
    ("verify",
     "@Throws(XborderException::class) fun `verify`(`secret`: kotlin.String, `body`: kotlin.ByteArray, `signature`: "
     "kotlin.String?) = uniffiRustCallWithError(XborderException) { _status -> "
     "UniffiLib.uniffi_xborder_ffi_fn_func_verify( FfiConverterString.lower(`secret`), "
     "FfiConverterByteArray.lower(`body`), FfiConverterOptionalString.lower(`signature`),_status) }"),
    ("decodeEnvelope",
     "@Throws(XborderException::class) fun `decodeEnvelope`(`body`: kotlin.ByteArray, `limits`: DecodeLimits? = null): "
     "Envelope { return FfiConverterTypeEnvelope.lift( uniffiRustCallWithError(XborderException) { _status -> "
     "UniffiLib.uniffi_xborder_ffi_fn_func_decode_envelope( FfiConverterByteArray.lower(`body`), "
     "FfiConverterOptionalTypeDecodeLimits.lower(`limits`),_status) } ) }"),
    ("Receiver.commit",
     "@Throws(XborderException::class)override fun `commit`(`id`: kotlin.String) = callWithHandle { "
     "uniffiRustCallWithError(XborderException) { _status -> UniffiLib.uniffi_xborder_ffi_fn_method_receiver_commit( "
     "it, FfiConverterString.lower(`id`),_status) } }"),
    ("Receiver.receive",
     "override fun `receive`(`body`: kotlin.ByteArray, `signature`: kotlin.String?): Decision { return "
     "FfiConverterTypeDecision.lift( callWithHandle { uniffiRustCall() { _status -> "
     "UniffiLib.uniffi_xborder_ffi_fn_method_receiver_receive( it, FfiConverterByteArray.lower(`body`), "
     "FfiConverterOptionalString.lower(`signature`),_status) } } ) }"),
    # Objects: what Speed.Lease reproduces (a clone per call, a call counter, freed by the cleaner).
    ("callWithHandle",
     "internal inline fun <R> callWithHandle(block: (handle: Long) -> R): R { // Check and increment the call counter, "
     "to keep the object alive. // This needs a compare-and-set retry loop in case of concurrent updates. do { val c = "
     "this.callCounter.get() if (c == 0L) { throw IllegalStateException(\"${this.javaClass.simpleName} object has "
     "already been destroyed\") } if (c == Long.MAX_VALUE) { throw IllegalStateException(\"${this.javaClass.simpleName} "
     "call counter would overflow\") } } while (! this.callCounter.compareAndSet(c, c + 1L)) // Now we can safely do the "
     "method call without the handle being freed concurrently. try { return block(this.uniffiCloneHandle()) } finally { "
     "// This decrement always matches the increment we performed above. if (this.callCounter.decrementAndGet() == 0L) "
     "{ cleanable?.clean() } } }"),
    ("destroy",
     "if (this.wasDestroyed.compareAndSet(false, true)) { // This decrement always matches the initial count of 1 given "
     "at creation time. if (this.callCounter.decrementAndGet() == 0L) { cleanable?.clean() } }"),
    ("Receiver's clone and free",
     "uniffiRustCall { status -> UniffiLib.uniffi_xborder_ffi_fn_free_receiver(handle, status) } } } /** * @suppress */ "
     "fun uniffiCloneHandle(): Long { if (handle == 0.toLong()) { throw InternalException(\"uniffiCloneHandle() called "
     "on NoHandle object\"); } return uniffiRustCall() { status -> "
     "UniffiLib.uniffi_xborder_ffi_fn_clone_receiver(handle, status) } }"),
    ("UniffiLib.CLEANER",
     "internal object UniffiLib { // The Cleaner for the whole library internal val CLEANER: UniffiCleaner by lazy {"),
]


def norm(text):
    return re.sub(r"\s+", " ", text).strip()


def uniffi_version():
    with open(os.path.join(ROOT, "Cargo.lock"), encoding="utf-8") as f:
        m = re.search(r'^name = "uniffi"\nversion = "([^"]+)"', f.read(), re.M)
    if not m:
        raise SystemExit("kotlin/check_speed.py: no uniffi package in Cargo.lock")
    return m.group(1)


def problems(generated_text, speed_text, locked):
    out = []
    label = re.search(r"SPEED MEASURE .*WRITTEN FOR uniffi ([0-9][^\s]*)", speed_text)
    const = re.search(r'const val UNIFFI_VERSION = "([^"]+)"', speed_text)
    if not label or not const:
        out.append("Speed.kt has no 'SPEED MEASURE ... WRITTEN FOR uniffi X' label or no UNIFFI_VERSION")
    elif label.group(1) != const.group(1):
        out.append("Speed.kt's label says uniffi %s, its UNIFFI_VERSION %s" % (label.group(1), const.group(1)))
    elif const.group(1) != locked:
        out.append("it was written for uniffi %s, Cargo.lock has %s" % (const.group(1), locked))
    text = norm(generated_text)
    out += ["the generated Kotlin lacks %s: %s" % (what, want[:160] + ("..." if len(want) > 160 else ""))
            for what, want in NEEDED if norm(want) not in text]
    return out


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: python3 check_speed.py path/to/dev/xborder/ffi/xborder.kt")
    with open(sys.argv[1], encoding="utf-8") as f:
        generated = f.read()
    with open(SPEED, encoding="utf-8") as f:
        speed = f.read()
    found = problems(generated, speed, uniffi_version())
    if found:
        raise SystemExit("kotlin/check_speed.py: bindings-uniffi/jvm/src/main/kotlin/dev/xborder/internal/Speed.kt "
                         "does not fit the generated Kotlin; check it against the new uniffi, then update it and "
                         "this list (or drop it, measuring the Kotlin rows of tests/bench/BENCHMARKS.md):\n  "
                         + "\n  ".join(found))
    print("check_speed.py: Speed.kt fits the generated Kotlin (uniffi %s, %d declarations)"
          % (uniffi_version(), len(NEEDED)))


if __name__ == "__main__":
    main()
