// Delivery handling: one delivery from the receiver's decision to the answer, in one call
// (handleDelivery, blocking over Claims or suspending over the host's own store) or act by act
// (DeliveryHandling); and the catch-up's one call (catchUp), each event it finds handled through
// the same driver as a delivery. Core decides the order, every reply, every retry and the
// checkpoint; this file converts and drives.
@file:JvmName("Deliveries")

package dev.xborder

import dev.xborder.internal.Inner
import dev.xborder.internal.act
import dev.xborder.internal.call
import dev.xborder.internal.deliveryAnswer
import dev.xborder.internal.handlingStep
import dev.xborder.internal.openHandling
import dev.xborder.internal.openRecovered
import dev.xborder.internal.u64
import java.util.UUID
import kotlin.coroutines.Continuation
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.coroutines.cancellation.CancellationException
import kotlin.coroutines.startCoroutine

/**
 * What to answer the provider for one delivery, and why: core's answer, with the exception the
 * host's persist threw (never swallowed: log it, or rethrow it after answering).
 */
data class DeliveryAnswer(
    /** The HTTP status to answer with (200, 400, 413, 500, 503). */
    val status: Int,
    /** The `Retry-After` to send, in seconds (null: none). */
    val retryAfterS: Long?,
    /** The last claim step's outcome (null: nothing was claimed, the decision was not process). */
    val outcome: ClaimOutcome?,
    /** Why it is not 2xx, or what went wrong on the way: the decision's or a claim step's error
     *  code (`SIGNATURE_MISMATCH`, `STORE_UNAVAILABLE`, ...), or `PERSIST_FAILED`; null when none. */
    val code: String?,
    /** Whether the host persisted the event. */
    val persisted: Boolean,
    /** What the persist threw (the answer is then 500 `PERSIST_FAILED`, the claim released for the
     *  provider's retry); null when it did not throw. */
    val persistError: Throwable? = null,
) {
    /** `{"Retry-After": "30"}`, or empty: the headers to send with [status]. */
    val headers: Map<String, String>
        get() = retryAfterS?.let { mapOf("Retry-After" to it.toString()) } ?: emptyMap()
}

/** The host's write of a new event (a database row, a queue message): throwing anything means it
 *  failed (the claim is released and the provider's retry processes the event). */
fun interface Persist {
    /** Persists [envelope]; must be idempotent (a persist that outlasts the lease may run twice). */
    fun persist(envelope: Envelope)
}

/**
 * [ClaimStore] for a store that is awaited (a coroutine client): entry texts kept with an atomic
 * compare-and-set, never read. Whatever either function throws makes the claim step fail with
 * `STORE_UNAVAILABLE` (a [CancellationException] cancels the handling instead).
 */
interface SuspendClaimStore {
    /** The entry text of [id], null when it has none (as [ClaimStore.load]). */
    suspend fun load(id: String, time: StoreTime): String?

    /** Atomically, as [ClaimStore.compareAndSet]: the times are core's ([StoreTime]). */
    suspend fun compareAndSet(id: String, expected: String?, new: String?, time: StoreTime): Boolean
}

/** The most acts one handling takes: core ends every handling well within it (about 40: a claim
 *  step's store needs are bounded by its conflict limit). */
private const val MAX_ACTS = 256

/**
 * One delivery, start to end, for a blocking handler: [receiver] verifies and decodes the raw
 * [body] with its `X-Webhook-Signature` header [signature] (null when absent); a live event is
 * claimed in [claims] (in memory, or a [ClaimStore]) by this request's [token], given to
 * [persist], then completed, or released when [persist] threw. Answer [DeliveryAnswer.status]
 * with [DeliveryAnswer.headers]: every status and `Retry-After` is core's (503 while another
 * request holds the event). [clock] gives the time of each claim step, in milliseconds since the
 * epoch. What [persist] threw is in [DeliveryAnswer.persistError]. Throws [XborderException] only
 * for this API's misuse (`INVALID_STEP`); a failed store is an answer (503 `STORE_UNAVAILABLE`).
 */
@JvmOverloads
fun handleDelivery(
    receiver: Receiver,
    claims: Claims,
    body: ByteArray,
    signature: String?,
    token: String = UUID.randomUUID().toString(),
    clock: () -> Long = System::currentTimeMillis,
    persist: Persist,
): DeliveryAnswer = DeliveryHandling(receiver, claims, body, signature, token).use { h ->
    blocking { h.run(null, clock, false) { persist.persist(it) } }
}

/**
 * [handleDelivery] for coroutines: the claims in the host's own [store] (awaited), [persist] a
 * suspend function; nothing blocks but core's own work (verify, decode, each step's decision).
 * [leaseMs] and [windowMs] as for [Claims] (null: 30 s, 7 days); the store must be shared by every
 * instance with the same lease. A [CancellationException] (from the store or [persist]) cancels
 * the handling and is rethrown: the claim then stays held until its lease runs out.
 */
suspend fun handleDelivery(
    receiver: Receiver,
    store: SuspendClaimStore,
    body: ByteArray,
    signature: String?,
    token: String = UUID.randomUUID().toString(),
    clock: () -> Long = System::currentTimeMillis,
    leaseMs: Long? = null,
    windowMs: Long? = null,
    persist: suspend (Envelope) -> Unit,
): DeliveryAnswer = DeliveryHandling.withStoreSteps(receiver, body, signature, token, leaseMs, windowMs).use { h ->
    h.run(store, clock, true, persist)
}

/**
 * One catch-up (contract v4 `events.catch_up`), start to end, for a blocking host: the events the
 * provider dead-lettered (an outage longer than its retries), recovered from
 * `GET /v1/external-events`. [get] is your authenticated HTTP GET of the API ([CatchUp.PATH] + the
 * query core asks for; return the answer as received); [sleep] waits the milliseconds core says
 * when the API asks for a retry (core caps the tries: then `API_ERROR`). The walk goes newest
 * first down to [since] (the checkpoint of the last catch-up; null: everything the provider keeps)
 * minus [overlapMs] (null: 5 minutes), [pageSize] records a page (null: 100). Then every event
 * found, oldest first, is handled as [handleDelivery] handles a delivery (the same driver: core's
 * decision for the recovered event, claimed in [claims], given to [persist], completed, or
 * released when [persist] threw), each with the token `<token>:<n>`: an event the webhook path
 * already handled is a duplicate (`skipped`). Keep [CatchUpResult.checkpoint] (a failed event
 * holds it) and pass it as [since] next time.
 *
 * Throws [XborderException]: `API_ERROR` ([XborderException.api]: the API's answer: a refusal,
 * or the last try), `MALFORMED_RESPONSE` (a page that is not the list), `INVALID_SINCE`,
 * `INVALID_OVERLAP`, `INVALID_PAGE_SIZE`; what [get] or [sleep] throw goes through.
 */
@JvmOverloads
fun catchUp(
    get: (path: String) -> HttpAnswer,
    receiver: Receiver,
    claims: Claims,
    since: String? = null,
    overlapMs: Long? = null,
    pageSize: Long? = null,
    sleep: (ms: Long) -> Unit = { Thread.sleep(it) },
    token: String = UUID.randomUUID().toString(),
    clock: () -> Long = System::currentTimeMillis,
    persist: Persist,
): CatchUpResult = CatchUp(since, overlapMs, pageSize).use { walk ->
    // Core's walk ends (each page once, each retry counted); a Wait is the same query again.
    var query = walk.nextQuery()
    while (query != null) {
        val answer = get(CatchUp.PATH + query)
        val fetched = walk.answered(answer.status, answer.body, answer.headers)
        if (fetched is Fetched.Wait) sleep(fetched.ms)
        query = walk.nextQuery()
    }
    walk.recover().use { recovery ->
        val persistErrors = mutableListOf<Throwable>()
        var n = 0L
        while (true) {
            val h = recovery.handling(receiver, claims, "$token:$n") ?: break
            val recorded = h.use {
                val answer = blocking { h.run(null, clock, false) { persist.persist(it) } }
                answer.persistError?.let(persistErrors::add)
                recovery.handled(h)
            }
            if (!recorded) break // core records every answer that is over: never a loop
            n++
        }
        val t = recovery.tally()
        CatchUpResult(
            recovery.checkpoint(), recovery.events().size.toLong(),
            t.processed, t.skipped, t.rejected, t.failed, walk.drifts(), persistErrors,
        )
    }
}

/** Runs a suspend block that never suspends (every function it awaits is a blocking one) to its
 *  end on this thread. */
private fun <T> blocking(block: suspend () -> T): T {
    var result: Result<T>? = null
    block.startCoroutine(Continuation(EmptyCoroutineContext) { result = it })
    return checkNotNull(result) { "a blocking handling suspended" }.getOrThrow()
}

/**
 * The one loop: does what [DeliveryHandling.next] says until the answer. [store] answers the
 * `Load` and `CompareAndSet` acts (null over [Claims], which answers them inside `step`).
 * [cancellable]: a [CancellationException] from [persist] cancels (rethrown) rather than fails.
 */
private suspend fun DeliveryHandling.run(
    store: SuspendClaimStore?,
    clock: () -> Long,
    cancellable: Boolean,
    persist: suspend (Envelope) -> Unit,
): DeliveryAnswer {
    var failure: Throwable? = null
    var act = next()
    for (round in 0 until MAX_ACTS) {
        act = when (val a = act) {
            is HandlingAct.Claim, is HandlingAct.Complete, is HandlingAct.Release -> step(clock())
            is HandlingAct.Load -> storeCall({ loaded(it) }) {
                (store ?: throw IllegalStateException("no store to load from")).load(a.id, a.time)
            }
            is HandlingAct.CompareAndSet -> storeCall({ swapped(it) }) {
                (store ?: throw IllegalStateException("no store to compare-and-set in"))
                    .compareAndSet(a.id, a.expected, a.new, a.time)
            }
            is HandlingAct.Persist -> {
                val ok = try {
                    persist(a.envelope)
                    true
                } catch (e: Exception) {
                    if (cancellable && e is CancellationException) throw e
                    if (e is InterruptedException) Thread.currentThread().interrupt()
                    failure = e
                    false
                }
                persisted(ok)
            }
            // The one call never opens a handling in a transaction: a transaction is driven act
            // by act (DeliveryHandling with inTransaction = true), where the host commits.
            is HandlingAct.Commit -> throw XborderException(
                "INVALID_STEP", null, "a Commit act: drive a handling in a transaction act by act (DeliveryHandling)",
            )
            is HandlingAct.Answer -> return a.answer.copy(persistError = failure)
        }
    }
    val e = XborderException("INVALID_STEP", null, "the handling did not end within $MAX_ACTS acts")
    failure?.let(e::addSuppressed)
    throw e
}

/** One store call of a step: its answer given to core by [then], or, when it threw, the failure
 *  (`storeFailed` with the exception's class and message; a cancellation is rethrown). */
private inline fun <T> DeliveryHandling.storeCall(then: (T) -> HandlingAct, call: () -> T): HandlingAct {
    val answer = try {
        call()
    } catch (e: CancellationException) {
        throw e
    } catch (e: Exception) {
        return storeFailed(e.toString())
    }
    return then(answer)
}

/**
 * One delivery act by act, for a host that drives it itself (the one-call [handleDelivery] does
 * this): [next] says what to do; `Claim`, `Complete` and `Release` are [step] (the host's clock);
 * over the host's own store ([withStoreSteps]) the step's store calls come back as `Load` and
 * `CompareAndSet`, answered with [loaded], [swapped] or [storeFailed]; `Persist` is the host's
 * write, then [persisted]; `Answer` ends it. [inTransaction]: the event's write and the claim's
 * completion are one transaction of the host's (a SQL store): the host begins it at `Persist`
 * (writes, does not commit, rolls back when the write failed), runs the complete step's `Load`
 * and `CompareAndSet` on the transaction's connection, and at `Commit` commits, then
 * [committed] (a failed commit releases the claim: 500 `PERSIST_FAILED`). The one-call
 * [handleDelivery] does not open transactions: a transaction is driven act by act. Every method answers the next act. Core decides the
 * order and every reply; a method called out of order throws `INVALID_STEP` (field: the act
 * awaited). Safe to share between threads; close it to free its memory.
 */
class DeliveryHandling : AutoCloseable {
    private val inner: dev.xborder.ffi.DeliveryHandling

    /** Whether the handling is in the host's transaction (a `Commit` act after the complete step). */
    val inTransaction: Boolean

    /** The handling of the raw [body] and its signature header [signature] (null: absent),
     *  decided by [receiver], the event claimed in [claims] by the request holding [token]
     *  (unique per request: a UUID); [inTransaction] as the class says. */
    @JvmOverloads
    constructor(receiver: Receiver, claims: Claims, body: ByteArray, signature: String?, token: String, inTransaction: Boolean = false) {
        inner = Inner.register(this, openHandling(receiver, claims, body, signature, token, null, null, inTransaction))
        this.inTransaction = inTransaction
    }

    /** The handling of [recovery]'s next event (core's decision for the recovered event), over
     *  [claims] or, null, the host's own store ([leaseMs], [windowMs]): [Recovery.handling]. */
    internal constructor(
        recovery: Recovery, receiver: Receiver, claims: Claims?, token: String,
        leaseMs: Long?, windowMs: Long?, inTransaction: Boolean,
    ) {
        inner = Inner.register(
            this,
            openRecovered(recovery, receiver, claims, token, leaseMs, windowMs, inTransaction)
                ?: throw IllegalStateException("every event of this recovery was handled"),
        )
        this.inTransaction = inTransaction
    }

    /** The same over the host's own store: [withStoreSteps]. */
    @JvmOverloads
    constructor(
        receiver: Receiver, body: ByteArray, signature: String?, token: String,
        leaseMs: Long? = null, windowMs: Long? = null, inTransaction: Boolean = false,
    ) {
        inner = Inner.register(this, openHandling(receiver, null, body, signature, token, leaseMs, windowMs, inTransaction))
        this.inTransaction = inTransaction
    }

    /** What to do next. */
    fun next(): HandlingAct = act(call { inner.next() })

    /** Runs (over [Claims]) or starts (over the host's store: a `Load` act) the claim, complete or
     *  release step the handling waits for, at [atMs] (milliseconds since the epoch). */
    fun step(atMs: Long): HandlingAct {
        val at = u64("atMs", atMs)
        return act(call { inner.step(at) })
    }

    /** The entry text the store holds for the `Load` act's id (null: none). A text xborder did
     *  not write fails the step (`STORE_UNAVAILABLE`, answered as core says). */
    fun loaded(entry: String?): HandlingAct = act(call { inner.loaded(entry) })

    /** Whether the store applied the `CompareAndSet` act. */
    fun swapped(applied: Boolean): HandlingAct = act(call { inner.swapped(applied) })

    /** The store call asked failed ([message]: why): the step ends with `STORE_UNAVAILABLE`. */
    fun storeFailed(message: String): HandlingAct = act(call { inner.storeFailed(message) })

    /** Whether the host persisted the event (false: its write failed). */
    fun persisted(ok: Boolean): HandlingAct = act(call { inner.persisted(ok) })

    /** (In a transaction.) Whether the host's commit succeeded: the answer, or (false) the
     *  release step. Throws `INVALID_STEP` when no commit is awaited. */
    fun committed(ok: Boolean): HandlingAct = act(call { inner.committed(ok) })

    /** The last claim step run: its outcome or error code (null before the first). */
    fun lastStep(): HandlingStep? = call { inner.lastStep() }?.let { handlingStep(it) }

    /** The answer once the handling is over (null before). */
    fun answer(): DeliveryAnswer? = call { inner.answer() }?.let { deliveryAnswer(it) }

    override fun close() = inner.close()

    companion object {
        /** The handling of one delivery whose claims live in a store the host calls itself (an
         *  awaited client): each step's store calls come back as `Load` and `CompareAndSet` acts.
         *  [leaseMs] and [windowMs] as for [Claims] (null: 30 s, 7 days). */
        @JvmStatic
        @JvmOverloads
        fun withStoreSteps(
            receiver: Receiver,
            body: ByteArray,
            signature: String?,
            token: String,
            leaseMs: Long? = null,
            windowMs: Long? = null,
            inTransaction: Boolean = false,
        ): DeliveryHandling = DeliveryHandling(receiver, body, signature, token, leaseMs, windowMs, inTransaction)
    }
}

/** The last claim step a [DeliveryHandling] ran: [step] (`claim`, `complete`, `release`) and its
 *  [outcome], or its error's [code] (`STORE_UNAVAILABLE`, ...), what a host logs per step. */
data class HandlingStep(
    /** `claim`, `complete` or `release`. */
    val step: String,
    /** The step's outcome (null when it failed). */
    val outcome: ClaimOutcome?,
    /** The step's error code (null when it gave an outcome). */
    val code: String?,
)

/** What a [DeliveryHandling] needs next. */
sealed class HandlingAct {
    /** Run the claim step: `step(atMs)`. */
    data class Claim(val id: String) : HandlingAct()

    /** Persist [envelope] (the host's write), then `persisted(ok)`. */
    data class Persist(val envelope: Envelope) : HandlingAct()

    /** Run the complete step: `step(atMs)`. */
    data class Complete(val id: String) : HandlingAct()

    /** Run the release step (the persist failed): `step(atMs)`. */
    data class Release(val id: String) : HandlingAct()

    /** (Over the host's store.) Load the entry text of [id], then `loaded(text)`; a failed call
     *  is `storeFailed(message)`. */
    data class Load(val id: String, val time: StoreTime) : HandlingAct()

    /** (Over the host's store.) Compare-and-set as [ClaimStore.compareAndSet], then
     *  `swapped(applied)`; a failed call is `storeFailed(message)`. */
    data class CompareAndSet(val id: String, val expected: String?, val new: String?, val time: StoreTime) : HandlingAct()

    /** (In a transaction.) Commit the host's transaction holding the event's write and the
     *  claim's completion, then `committed(ok)`. */
    data class Commit(val id: String) : HandlingAct()

    /** Answer the provider with [answer]; the handling is over. */
    data class Answer(val answer: DeliveryAnswer) : HandlingAct()
}
