// SPEED MEASURE (issue 16's crossing cost, kept by issue 24 item 6), WRITTEN FOR uniffi 0.32.2
// (UNIFFI_VERSION below).
//
// What it does. The hot calls (Events.classify, Webhooks.verify, Webhooks.decodeEnvelope,
// Receiver.receive and Receiver.commit) call the generated JNA functions (UniffiLib, package
// dev.xborder.ffi, untouched) themselves instead of through the generated wrappers, with the
// generated converters for every argument and answer, and with call-status structures taken from
// a per-thread pool instead of a new one per crossing.
//
// Why. uniffi's Kotlin makes a new `UniffiRustCallStatus` for every crossing (three to five per
// call: allocate each argument's buffer, clone the object's handle, the call, free the answer). It
// is a JNA Structure holding another (RustBuffer), built by reflection with native Memory released
// by a cleaner thread: about 19 KB of garbage and most of the 44 µs `classifyEvent` cost without
// pooling (tests/bench/BENCHMARKS.md, "Kotlin", gives the cost with and without this module). The
// helper that makes them (`uniffiRustCallWithError`) is a private inline function with no hook, and
// no build step may rewrite generated code, hence this module.
//
// How, with uniffi's behaviour kept:
// - A status per thread and call depth: taken from this thread's pool, given back after the call.
//   A pool, not one status, because a call can re-enter (Rust calling a ClaimStore written in
//   Kotlin or Java that calls Rust again takes a second status while the first is in use). A
//   pooled status has JNA's automatic copying turned off: its native memory starts zeroed, Rust
//   writes it only on failure (uniffi_core's rust_call_with_out_status), and `check` reads the
//   code byte; on failure it reads the whole status, then zeroes it again (before it goes back).
// - The checks are uniffi's `uniffiCheckCallStatus`: success; an error lifted by the generated
//   error handler (dev.xborder.ffi.XborderException.ErrorHandler, which the API turns into
//   dev.xborder.XborderException; UniffiNullRustCallStatusErrorHandler where uniffi uses it); a
//   panic or an unexpected error as the same InternalException the generated code throws.
// - A Receiver's calls go through a `Lease`: one reference to the Rust object held beside the
//   generated one, cloned for each call (the call consumes the clone, as uniffi's callWithHandle
//   does), guarded by the same call counter, freed on close or by UniffiLib.CLEANER when the
//   hand-written Receiver is collected.
// - An argument already lowered is freed when a later one fails to lower (uniffi leaks it).
//
// Switch: `-Dxborder.speed=false` (read once, when this object is first used) sends every call
// through the generated wrappers, to measure without this module; the tests flip `Speed.on` to
// compare both paths.
//
// Checked at build time: bindings-uniffi/kotlin/check_speed.py (run by bindings-uniffi/build.sh)
// fails the build when Cargo.lock's uniffi is not UNIFFI_VERSION or when the generated xborder.kt
// lacks a declaration or a body this module relies on (it lists them). On a uniffi upgrade: check
// this module against the new generated code, then update both (or drop the module, measuring
// the Kotlin rows of tests/bench/BENCHMARKS.md).
package dev.xborder.internal

import dev.xborder.ffi.FfiConverterByteArray
import dev.xborder.ffi.FfiConverterOptionalString
import dev.xborder.ffi.FfiConverterOptionalTypeDecodeLimits
import dev.xborder.ffi.FfiConverterRustBuffer
import dev.xborder.ffi.FfiConverterString
import dev.xborder.ffi.FfiConverterTypeDecision
import dev.xborder.ffi.FfiConverterTypeEnvelope
import dev.xborder.ffi.FfiConverterTypeEventClassification
import dev.xborder.ffi.InternalException
import dev.xborder.ffi.RustBuffer
import dev.xborder.ffi.UNIFFI_CALL_SUCCESS
import dev.xborder.ffi.UniffiLib
import dev.xborder.ffi.UniffiNullRustCallStatusErrorHandler
import dev.xborder.ffi.UniffiRustCallStatus
import dev.xborder.ffi.UniffiRustCallStatusErrorHandler
import dev.xborder.ffi.XborderException
import java.nio.ByteBuffer
import java.nio.ByteOrder
import java.util.ArrayDeque
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicLong

internal object Speed {
    /** The uniffi version this module was written for (check_speed.py compares it with Cargo.lock). */
    const val UNIFFI_VERSION = "0.32.2"

    /** On unless `-Dxborder.speed=false`. The tests set it to compare both paths. */
    @JvmField
    @Volatile
    var on: Boolean = System.getProperty("xborder.speed") != "false"

    // Statuses. -----------------------------------------------------------------------------------

    private val pool: ThreadLocal<ArrayDeque<UniffiRustCallStatus>> = ThreadLocal.withInitial { ArrayDeque<UniffiRustCallStatus>(4) }

    private fun fresh(): UniffiRustCallStatus {
        val s = UniffiRustCallStatus()
        s.write() // code 0 and an empty error buffer, in its native memory
        s.setAutoSynch(false) // JNA no longer copies it before and after each call: check() reads it
        return s
    }

    /** Runs [block] with a status from this thread's pool; it goes back zeroed. */
    private inline fun <R> withStatus(block: (UniffiRustCallStatus) -> R): R {
        val q = pool.get()
        val s = q.pollLast() ?: fresh()
        try {
            return block(s)
        } finally {
            // check() zeroes a failed status; this covers a throw between a call and its check.
            if (s.pointer.getByte(0) != UNIFFI_CALL_SUCCESS) reset(s)
            q.addLast(s)
        }
    }

    private fun reset(s: UniffiRustCallStatus) {
        s.code = UNIFFI_CALL_SUCCESS
        s.error_buf.capacity = 0
        s.error_buf.len = 0
        s.error_buf.data = null
        s.write()
    }

    /** uniffi's uniffiCheckCallStatus, on a pooled status (zeroed again before it returns). */
    private fun <E : Exception> check(s: UniffiRustCallStatus, handler: UniffiRustCallStatusErrorHandler<E>) {
        if (s.pointer.getByte(0) == UNIFFI_CALL_SUCCESS) return
        s.read()
        try {
            if (s.isError()) throw handler.lift(s.error_buf)
            if (s.isPanic()) {
                // As uniffi: Rust sends the panic's message, or an empty buffer when it could not.
                if (s.error_buf.len > 0) throw InternalException(FfiConverterString.lift(s.error_buf))
                throw InternalException("Rust panic")
            }
            throw InternalException("Unknown rust call status: ${s.code}")
        } finally {
            reset(s)
        }
    }

    // Buffers: uniffi's RustBuffer.alloc/free and lowerIntoRustBuffer/liftFromRustBuffer, with a
    // pooled status. -------------------------------------------------------------------------------

    private fun alloc(size: Long, s: UniffiRustCallStatus): RustBuffer.ByValue {
        val rb = UniffiLib.ffi_xborder_ffi_rustbuffer_alloc(size, s)
        check(s, UniffiNullRustCallStatusErrorHandler)
        if (rb.data == null) throw RuntimeException("RustBuffer.alloc() returned null data pointer (size=$size)")
        return rb
    }

    private fun free(rb: RustBuffer.ByValue, s: UniffiRustCallStatus) {
        UniffiLib.ffi_xborder_ffi_rustbuffer_free(rb, s)
        check(s, UniffiNullRustCallStatusErrorHandler)
    }

    /** A string argument: its UTF-8 bytes, as FfiConverterString.lower writes them (no length). */
    private fun text(value: String, s: UniffiRustCallStatus): RustBuffer.ByValue {
        val utf8: ByteBuffer = FfiConverterString.toUtf8(value) // throws on a lone surrogate, as uniffi
        val n = utf8.remaining()
        val rb = alloc(n.toLong(), s)
        try {
            if (n > 0) {
                if (utf8.hasArray()) rb.data!!.write(0, utf8.array(), utf8.arrayOffset() + utf8.position(), n)
                else rb.data!!.getByteBuffer(0, n.toLong()).put(utf8)
            }
            rb.len = n.toLong()
            return rb
        } catch (e: Throwable) {
            free(rb, s)
            throw e
        }
    }

    /** Any other argument, written by its generated converter (lowerIntoRustBuffer). */
    private fun <T> lower(c: FfiConverterRustBuffer<T>, value: T, s: UniffiRustCallStatus): RustBuffer.ByValue {
        val rb = alloc(c.allocationSize(value).toLong(), s)
        try {
            val bb = rb.data!!.getByteBuffer(0, rb.capacity).order(ByteOrder.BIG_ENDIAN)
            c.write(value, bb)
            rb.len = bb.position().toLong()
            return rb
        } catch (e: Throwable) {
            free(rb, s)
            throw e
        }
    }

    /** An answer, read by its generated converter, then freed (liftFromRustBuffer). */
    private fun <T> lift(c: FfiConverterRustBuffer<T>, rb: RustBuffer.ByValue, s: UniffiRustCallStatus): T {
        try {
            val bb = rb.asByteBuffer()!!
            val value = c.read(bb)
            if (bb.hasRemaining()) throw RuntimeException("junk remaining in buffer after lifting, something is very wrong!!")
            return value
        } finally {
            free(rb, s)
        }
    }

    // The calls. ---------------------------------------------------------------------------------

    /** dev.xborder.ffi.classifyEvent. */
    fun classifyEvent(name: String): dev.xborder.ffi.EventClassification {
        if (!on) return dev.xborder.ffi.classifyEvent(name)
        return withStatus { s ->
            val a = text(name, s)
            val out = UniffiLib.uniffi_xborder_ffi_fn_func_classify_event(a, s)
            check(s, UniffiNullRustCallStatusErrorHandler)
            lift(FfiConverterTypeEventClassification, out, s)
        }
    }

    /** dev.xborder.ffi.verify: throws dev.xborder.ffi.XborderException. */
    fun verify(secret: String, body: ByteArray, signature: String?) {
        if (!on) return dev.xborder.ffi.verify(secret, body, signature)
        withStatus { s ->
            val a = text(secret, s)
            val b = next(s, a) { lower(FfiConverterByteArray, body, s) }
            val c = next(s, a, b) { lower(FfiConverterOptionalString, signature, s) }
            UniffiLib.uniffi_xborder_ffi_fn_func_verify(a, b, c, s)
            check(s, XborderException)
        }
    }

    /** dev.xborder.ffi.decodeEnvelope: throws dev.xborder.ffi.XborderException. */
    fun decodeEnvelope(body: ByteArray, limits: dev.xborder.ffi.DecodeLimits?): dev.xborder.ffi.Envelope {
        if (!on) return dev.xborder.ffi.decodeEnvelope(body, limits)
        return withStatus { s ->
            val a = lower(FfiConverterByteArray, body, s)
            val b = next(s, a) { lower(FfiConverterOptionalTypeDecodeLimits, limits, s) }
            val out = UniffiLib.uniffi_xborder_ffi_fn_func_decode_envelope(a, b, s)
            check(s, XborderException)
            lift(FfiConverterTypeEnvelope, out, s)
        }
    }

    /** A lease on [inner]'s Rust object for [owner] (the hand-written Receiver); null when off. */
    fun lease(owner: Any, inner: dev.xborder.ffi.Receiver): Lease? = if (on) Lease(owner, inner) else null

    /** dev.xborder.ffi.Receiver.receive. */
    fun receive(lease: Lease?, inner: dev.xborder.ffi.Receiver, body: ByteArray, signature: String?): dev.xborder.ffi.Decision {
        if (lease == null || !on) return inner.receive(body, signature)
        return withStatus { s ->
            val a = lower(FfiConverterByteArray, body, s)
            val b = next(s, a) { lower(FfiConverterOptionalString, signature, s) }
            val h = next(s, a, b) { lease.clone(s) }
            val out = UniffiLib.uniffi_xborder_ffi_fn_method_receiver_receive(h, a, b, s)
            check(s, UniffiNullRustCallStatusErrorHandler)
            lift(FfiConverterTypeDecision, out, s)
        }
    }

    /** dev.xborder.ffi.Receiver.commit: throws dev.xborder.ffi.XborderException. */
    fun commit(lease: Lease?, inner: dev.xborder.ffi.Receiver, id: String) {
        if (lease == null || !on) return inner.commit(id)
        withStatus { s ->
            val a = text(id, s)
            val h = next(s, a) { lease.clone(s) }
            UniffiLib.uniffi_xborder_ffi_fn_method_receiver_commit(h, a, s)
            check(s, XborderException)
        }
    }

    /** [make] the next argument (or handle); when it throws, the arguments already lowered are freed. */
    private inline fun <T> next(s: UniffiRustCallStatus, vararg lowered: RustBuffer.ByValue, make: () -> T): T =
        try {
            make()
        } catch (e: Throwable) {
            for (rb in lowered) free(rb, s)
            throw e
        }

    /**
     * One reference to a Receiver's Rust object, beside the generated object's own, with the
     * generated object's lifetime rules (uniffi's callWithHandle, destroy, UniffiCleanAction).
     */
    internal class Lease(owner: Any, inner: dev.xborder.ffi.Receiver) : AutoCloseable {
        private val handle: Long = inner.uniffiCloneHandle()
        private val calls = AtomicLong(1)
        private val closed = AtomicBoolean(false)
        private val cleanable = UniffiLib.CLEANER.register(owner, Free(handle))

        /** A new reference for one call (the call consumes it), never after close. */
        fun clone(s: UniffiRustCallStatus): Long {
            do {
                val c = calls.get()
                if (c == 0L) throw IllegalStateException("Receiver object has already been destroyed")
                if (c == Long.MAX_VALUE) throw IllegalStateException("Receiver call counter would overflow")
            } while (!calls.compareAndSet(c, c + 1L))
            try {
                val h = UniffiLib.uniffi_xborder_ffi_fn_clone_receiver(handle, s)
                check(s, UniffiNullRustCallStatusErrorHandler)
                return h
            } finally {
                if (calls.decrementAndGet() == 0L) cleanable.clean()
            }
        }

        override fun close() {
            if (closed.compareAndSet(false, true) && calls.decrementAndGet() == 0L) cleanable.clean()
        }

        // Holds the handle only, never the owner.
        private class Free(private val handle: Long) : Runnable {
            override fun run() {
                withStatus { s ->
                    UniffiLib.uniffi_xborder_ffi_fn_free_receiver(handle, s)
                    check(s, UniffiNullRustCallStatusErrorHandler)
                }
            }
        }
    }
}
