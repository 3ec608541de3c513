// Claims: one delivery processed once among the instances of a consumer (claim, then complete or
// release), kept in memory or in the host's store.
package dev.xborder

import dev.xborder.internal.Inner
import dev.xborder.internal.call
import dev.xborder.internal.ffi
import dev.xborder.internal.need
import dev.xborder.internal.openClaims
import dev.xborder.internal.openTask
import dev.xborder.internal.outcome
import dev.xborder.internal.reply
import dev.xborder.internal.u64

/**
 * Claims of event ids: [step] `claim` before processing a delivery, then `complete` (or
 * `release` when processing failed); [reply] says what to answer the provider. Every decision is
 * core's. Safe to share between threads.
 *
 * Numbers are milliseconds; null is core's default: a lease of 30 s, a window of 7 days for done
 * ids (the time to live a store gives them), 10,000 ids kept in memory. A negative one is an
 * IllegalArgumentException naming it.
 */
class Claims : AutoCloseable {
    private val inner: dev.xborder.ffi.Claims

    /** Claims kept in this process. */
    @JvmOverloads
    constructor(leaseMs: Long? = null, windowMs: Long? = null, capacity: Long? = null) {
        inner = Inner.register(this, openClaims(null, leaseMs, windowMs, capacity))
    }

    /** Claims kept in [store], shared by the instances of one consumer (also [Claims.withStore]). */
    @JvmOverloads
    constructor(store: ClaimStore, leaseMs: Long? = null, windowMs: Long? = null) {
        inner = Inner.register(this, openClaims(store, leaseMs, windowMs, null))
    }

    /** One step (`claim`, `complete` or `release`) of [id] by the request holding [token], at
     *  [atMs] (milliseconds since the epoch). Throws `INVALID_STEP` (field `do`, `id` or `token`)
     *  or `STORE_UNAVAILABLE` (the store threw or answered what xborder did not write). */
    fun step(step: String, id: String, token: String, atMs: Long): ClaimOutcome {
        val at = u64("atMs", atMs)
        return outcome(call { inner.step(step, id, token, at) })
    }

    /** What to answer the provider after [step] gave [outcome]: null after `claimed` (process
     *  the event first); otherwise the status and Retry-After. Throws `INVALID_STEP`. */
    fun reply(step: String, outcome: ClaimOutcome): ClaimReply? = call { inner.reply(step, ffi(outcome)) }?.let { dev.xborder.internal.reply(it) }

    override fun close() = inner.close()

    companion object {
        /** `Claims(store, leaseMs, windowMs)`. */
        @JvmStatic
        @JvmOverloads
        fun withStore(store: ClaimStore, leaseMs: Long? = null, windowMs: Long? = null): Claims = Claims(store, leaseMs, windowMs)

        /** What to answer the provider when a step threw the error of [code]. */
        @JvmStatic
        fun errorReply(code: String): ClaimReply = reply(dev.xborder.ffi.claimErrorReply(code))

        /** What to answer the provider when a step threw [error]. */
        @JvmStatic
        fun errorReply(error: XborderException): ClaimReply = errorReply(error.code)
    }
}

/**
 * Where claims are kept, written by the host (Redis, SQL, a map): it keeps entry texts with an
 * atomic compare-and-set and never reads them. Whatever either method throws makes the step
 * fail with `STORE_UNAVAILABLE`. `dev.xborder.redis.RedisClaimStore` is one, over Jedis.
 */
interface ClaimStore {
    /** The entry text of [id], null when it has none (in a store that keeps expiry: or only one
     *  that expired at [StoreTime.nowMs]). */
    fun load(id: String, time: StoreTime): String?

    /** Atomically: when the entry of [id] is [expected] (null: none, or only one expired at
     *  [StoreTime.nowMs]), make it [new] (null: remove it), which the store may drop after
     *  [StoreTime.ttlMs] milliseconds, at [StoreTime.expiresAtMs] (null: keep it), and answer
     *  true; otherwise change nothing and answer false. */
    fun compareAndSet(id: String, expected: String?, new: String?, time: StoreTime): Boolean
}

/**
 * The times of one store call, as core has clamped them (nowMs and ttlMs at most 2^48 - 1,
 * expiresAtMs their sum, below 2^49): the step's time
 * [nowMs], and for a write how long the store may keep the new entry ([ttlMs], from [nowMs]) and
 * until when ([expiresAtMs]); null: no limit (a load or a removal has none). A store writes and
 * compares them as given and never reads an entry's text for a time nor clamps one: a SQL store
 * keeps [expiresAtMs] in a column and counts a row whose expiry is at or before [nowMs] as no
 * row; a Redis store gives [ttlMs] to `PEXPIRE`.
 */
data class StoreTime(val nowMs: Long, val ttlMs: Long?, val expiresAtMs: Long?)

/**
 * One claim step driven by the host, for stores that are awaited (coroutines, futures): [start],
 * then answer each [ClaimNeed] ([loaded] after a load, [swapped] after a compare-and-set,
 * [failed] when the store call failed) until [ClaimNeed.Done].
 */
class ClaimTask @JvmOverloads constructor(
    step: String,
    id: String,
    token: String,
    atMs: Long,
    leaseMs: Long? = null,
    windowMs: Long? = null,
) : AutoCloseable {
    private val inner = openTask(step, id, token, atMs, leaseMs, windowMs)

    fun start(): ClaimNeed = need(call { inner.start() })

    fun loaded(entry: String?): ClaimNeed = need(call { inner.loaded(entry) })

    fun swapped(applied: Boolean): ClaimNeed = need(call { inner.swapped(applied) })

    /** Ends a step whose store call failed: throws `STORE_UNAVAILABLE` with [message]. */
    fun failed(message: String) {
        call { inner.failed(message) }
    }

    override fun close() = inner.close()
}

/** What a [ClaimTask] needs next from the store. */
sealed class ClaimNeed {
    /** Load the entry text of [id] at [time] (as [ClaimStore.load]), then call `loaded`. */
    data class Load(val id: String, val time: StoreTime) : ClaimNeed()

    /** Compare-and-set as [ClaimStore.compareAndSet], then call `swapped` with its answer. */
    data class CompareAndSet(val id: String, val expected: String?, val new: String?, val time: StoreTime) : ClaimNeed()

    /** The step is over. */
    data class Done(val outcome: ClaimOutcome) : ClaimNeed()
}

/** A step's outcome; [toString] is FORMAT.md's name (`claimed`, `in_progress`, ...). */
enum class ClaimOutcome {
    /** This request now holds the id: process the event, then complete (or release). */
    CLAIMED,

    /** Another request holds the id and its lease runs: answer non-2xx (with Retry-After). */
    IN_PROGRESS,

    /** The id is done: answer 2xx, do nothing. */
    DUPLICATE,

    /** The id is done from now on: answer 2xx. */
    COMPLETED,

    /** The id is free again: answer non-2xx, the retry processes it. */
    RELEASED,

    /** This request no longer holds the id (another took it over): nothing changed. */
    STALE;

    private val text: String by lazy { ffi(this).toString() }
    private val ack: Boolean by lazy { ffi(this).acknowledges() }

    /** Whether the delivery is answered 2xx (core's rule: `duplicate` and `completed`). */
    fun acknowledges(): Boolean = ack

    override fun toString(): String = text
}

/** What to answer the provider: an HTTP [status] (200, 500, 503) and, when it should wait, a
 *  `Retry-After` in seconds. */
data class ClaimReply(val status: Int, val retryAfterS: Long?) {
    init {
        require(status in 100..599) { "status must be an HTTP status (100 to 599), got $status" }
        require(retryAfterS == null || retryAfterS >= 0) { "retryAfterS must be a number >= 0, got $retryAfterS" }
    }
}
