// The catch-up (contract v4 `events.catch_up`): the events the provider dead-lettered, recovered
// from `GET /v1/external-events`. [CatchUp] is core's walk down to the checkpoint; [Recovery]
// hands each event found to the same handling as a delivery; [catchUp] (Handling.kt, beside
// handleDelivery: the same driver) does all of it in one call. Which page, when to retry, which
// event is new and where the checkpoint may move are core's; this file converts.
package dev.xborder

import dev.xborder.internal.Inner
import dev.xborder.internal.call
import dev.xborder.internal.drift
import dev.xborder.internal.externalEvent
import dev.xborder.internal.fetched
import dev.xborder.internal.httpHeaders
import dev.xborder.internal.long
import dev.xborder.internal.u16

/**
 * The walk of `GET /v1/external-events` down to the checkpoint: [since] (the checkpoint an
 * earlier catch-up returned; null: everything the provider keeps) minus [overlapMs] (null: 5
 * minutes), [pageSize] records a page (null: 100). Throws `INVALID_SINCE`, `INVALID_OVERLAP` (a
 * negative overlap too), `INVALID_PAGE_SIZE`.
 *
 * [nextQuery] gives the query (`GET /v1/external-events?` + it; null: done), then [answered]
 * (or [feed]); then [events], oldest first, and [recover] to handle them.
 */
class CatchUp @JvmOverloads constructor(since: String? = null, overlapMs: Long? = null, pageSize: Long? = null) : AutoCloseable {
    private val inner = Inner.register(this, call { dev.xborder.ffi.CatchUp(since, overlapMs, pageSize) })

    /** The query of the next page (without `?`); null when the walk is over. */
    fun nextQuery(): String? = inner.nextQuery()

    fun isDone(): Boolean = inner.isDone()

    /** The page answered to [nextQuery] (its JSON text): its drift. Throws `MALFORMED_RESPONSE`
     *  (the page may be asked for again), `MALFORMED_JSON`. */
    fun feed(pageJson: String): List<Drift> = call { inner.feed(pageJson) }.map(::drift)

    /** The answer to [nextQuery] as your HTTP client got it: [Fetched.Page] (fed) or
     *  [Fetched.Wait] (send the same query again after it). Throws `API_ERROR` (with
     *  [XborderException.api], the API's answer), `MALFORMED_RESPONSE`. */
    @JvmOverloads
    fun answered(status: Int, text: String, headers: Map<String, String> = emptyMap()): Fetched {
        val s = u16("status", status)
        return fetched(call { inner.answered(s, httpHeaders(headers), text) })
    }

    /** The events found so far, oldest first. */
    fun events(): List<ExternalEvent> = inner.events().map(::externalEvent)

    /** Every drift so far (`MALFORMED_RECORD` with its count, and the walk's own). */
    fun drifts(): List<Drift> = inner.drifts().map(::drift)

    /** The `since` of the next catch-up once every event found is handled (null: walk everything
     *  again); [Recovery.checkpoint] gives the one the handling allows. */
    fun checkpoint(): String? = inner.checkpoint()

    /** The handling of the events found (of a copy of the walk). */
    fun recover(): Recovery = Recovery(this)

    override fun close() = inner.close()

    companion object {
        /** The path of the list the walk reads: `GET` this, then [nextQuery]'s query. */
        const val PATH: String = "/v1/external-events?"
    }
}

/**
 * The events a [CatchUp] found, handled one by one, oldest first, each as its delivery would be:
 * [handling] gives the next event's [DeliveryHandling] (core's decision for the recovered event:
 * no signature, it came over the API), driven as a delivery's; then [handled]. [checkpoint] is the
 * `since` of the next catch-up.
 */
class Recovery internal constructor(walk: CatchUp) : AutoCloseable {
    private val inner = Inner.register(this, Inner.catchUp(walk).recover())

    /** Every event found, oldest first. */
    fun events(): List<ExternalEvent> = inner.events().map(::externalEvent)

    /** The event to handle next; null when every one has been. */
    fun nextEvent(): ExternalEvent? = inner.nextEvent()?.let(::externalEvent)

    /** The handling of the next event, claimed in [claims] with the request's [token] (unique: a
     *  UUID); null when every event was handled. */
    @JvmOverloads
    fun handling(receiver: Receiver, claims: Claims, token: String, inTransaction: Boolean = false): DeliveryHandling? =
        if (inner.nextEvent() == null) null else DeliveryHandling(this, receiver, claims, token, null, null, inTransaction)

    /** [handling] over a store the host calls itself (as [DeliveryHandling.withStoreSteps]). */
    @JvmOverloads
    fun handlingWithStoreSteps(
        receiver: Receiver, token: String, leaseMs: Long? = null, windowMs: Long? = null, inTransaction: Boolean = false,
    ): DeliveryHandling? =
        if (inner.nextEvent() == null) null else DeliveryHandling(this, receiver, null, token, leaseMs, windowMs, inTransaction)

    /** Records the answer of [handling] (the last one [handling] gave, once over) and moves to the
     *  next event: false (nothing recorded) for a handling not over, not this recovery's for its
     *  next event, or already recorded. */
    fun handled(handling: DeliveryHandling): Boolean = inner.handled(Inner.handling(handling))

    /** What the handling came to so far. */
    fun tally(): Tally = inner.tally().let {
        Tally(long("processed", it.processed), long("skipped", it.skipped), long("rejected", it.rejected), long("failed", it.failed))
    }

    /** The `since` of the next catch-up: up to the newest event handled before the first that was
     *  not; unchanged when the walk may have missed an event. Keep it. */
    fun checkpoint(): String? = inner.checkpoint()

    override fun close() = inner.close()
}

/** An event a catch-up found: a record read as the webhook envelope it stands for (same [id]):
 *  [event] (the record's `name`), [entityId] (`aggregateId`), [entityType] (`aggregateType`),
 *  [createdAt] as the provider wrote it, [dataJson] (`payload` as JSON text; null: absent). */
data class ExternalEvent(
    val id: String,
    val event: String,
    val entityId: String,
    val entityType: String,
    val createdAt: String,
    val dataJson: String?,
)

/** What to do after [CatchUp.answered]. */
sealed class Fetched {
    /** The page was fed, with its [drifts]: ask [CatchUp.nextQuery] again. */
    data class Page(val drifts: List<Drift>) : Fetched()

    /** The API asked for a retry: send the same query again after [ms] milliseconds. */
    data class Wait(val ms: Long) : Fetched()
}

/** What the handling of a catch-up's events came to: [processed] (persisted now), [skipped] (a
 *  duplicate, or not a live event), [rejected] (refused as its delivery would be), [failed] (a
 *  5xx: the checkpoint stops before the first of them). */
data class Tally(val processed: Long, val skipped: Long, val rejected: Long, val failed: Long)

/** An answer of the host's HTTP GET, as received: [status], [headers] (for `Retry-After`; names
 *  in any case) and [body], the response text. What [catchUp]'s `get` returns. */
data class HttpAnswer(val status: Int, val headers: Map<String, String>, val body: String) {
    /** An answer without headers. */
    constructor(status: Int, body: String) : this(status, emptyMap(), body)
}

/** What [catchUp] did: [checkpoint] (keep it; pass it as `since` next time: a failed event holds
 *  it), how many events it [found], their handling ([processed], [skipped], [rejected],
 *  [failed], as [Tally]), the walk's [drifts], and what [Persist.persist] threw
 *  ([persistErrors]: those events were released and count as [failed]; never swallowed). */
data class CatchUpResult(
    val checkpoint: String?,
    val found: Long,
    val processed: Long,
    val skipped: Long,
    val rejected: Long,
    val failed: Long,
    val drifts: List<Drift>,
    val persistErrors: List<Throwable> = emptyList(),
)
