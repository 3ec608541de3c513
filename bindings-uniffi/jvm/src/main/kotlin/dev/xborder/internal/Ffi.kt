// The one place where the hand-written API (package dev.xborder) meets uniffi's generated code
// (package dev.xborder.ffi, as uniffi writes it): numbers checked and converted, records and
// enums copied, and every generated exception turned into dev.xborder.XborderException.
// Conversion only: every answer is core's. Kotlin `internal`: not part of the API.
package dev.xborder.internal

import dev.xborder.AccountCheck
import dev.xborder.ApiErrorInfo
import dev.xborder.ExternalEvent
import dev.xborder.Fetched
import dev.xborder.RequestId
import dev.xborder.Retry
import dev.xborder.AccountKind
import dev.xborder.AccountLength
import dev.xborder.AccountParams
import dev.xborder.AccountState
import dev.xborder.Action
import dev.xborder.BeneficiaryValidation
import dev.xborder.ClaimNeed
import dev.xborder.ClaimOutcome
import dev.xborder.ClaimReply
import dev.xborder.ClaimStore
import dev.xborder.DecodeLimits
import dev.xborder.DeliveryAnswer
import dev.xborder.Decision
import dev.xborder.Drift
import dev.xborder.Envelope
import dev.xborder.EventClassification
import dev.xborder.EventKind
import dev.xborder.FieldSource
import dev.xborder.FormField
import dev.xborder.FormInput
import dev.xborder.FormOption
import dev.xborder.FormSource
import dev.xborder.HandlingAct
import dev.xborder.HandlingStep
import dev.xborder.Issue
import dev.xborder.IssueCode
import dev.xborder.PageInfo
import dev.xborder.PageRequest
import dev.xborder.Reason
import dev.xborder.RegistrationCheck
import dev.xborder.RejectedEvent
import dev.xborder.RequiredField
import dev.xborder.StoreTime
import dev.xborder.WalkStep
import dev.xborder.XborderException
import dev.xborder.ffi.XborderException as FfiException

// Numbers: Java's long and int in, uniffi's ULong/UInt out; never reinterpreted. -----------------

internal fun u64(name: String, value: Long): ULong {
    require(value >= 0) { "$name must be a number >= 0, got $value" }
    return value.toULong()
}

internal fun u64(name: String, value: Long?): ULong? = value?.let { u64(name, it) }

internal fun u16(name: String, value: Int): UShort {
    require(value in 0..UShort.MAX_VALUE.toInt()) { "$name must be a number from 0 to ${UShort.MAX_VALUE}, got $value" }
    return value.toUShort()
}

internal fun u32(name: String, value: Long): UInt {
    require(value in 0..UInt.MAX_VALUE.toLong()) { "$name must be a number from 0 to ${UInt.MAX_VALUE}, got $value" }
    return value.toUInt()
}

/** A count core answers, as a long: one beyond Long.MAX_VALUE throws, it never wraps. */
internal fun long(name: String, value: ULong): Long {
    if (value > Long.MAX_VALUE.toULong()) throw ArithmeticException("$name $value does not fit in a long")
    return value.toLong()
}

internal fun long(name: String, value: ULong?): Long? = value?.let { long(name, it) }

/** A count core answers, as an int: one beyond Int.MAX_VALUE throws, it never wraps. */
internal fun int(name: String, value: UInt): Int {
    if (value > Int.MAX_VALUE.toUInt()) throw ArithmeticException("$name $value does not fit in an int")
    return value.toInt()
}

internal fun int(name: String, value: UInt?): Int? = value?.let { int(name, it) }

/** A time to live beyond Long.MAX_VALUE ms (292 million years) is Long.MAX_VALUE. */
/** Core's store times (below 2^49: always a long). */
internal fun storeTime(v: dev.xborder.ffi.StoreTime) =
    StoreTime(long("nowMs", v.nowMs), long("ttlMs", v.ttlMs), long("expiresAtMs", v.expiresAtMs))

// Errors: every generated variant to the one unchecked exception. ---------------------------------

internal fun exception(e: FfiException): XborderException = when (e) {
    is FfiException.Registration -> XborderException(e.code, null, e.detail, e.rejected.map(::rejected))
    is FfiException.Signature -> XborderException(e.code, null, e.detail)
    is FfiException.Envelope -> XborderException(e.code, e.field, e.detail)
    is FfiException.Store -> XborderException(e.code, null, e.detail)
    is FfiException.Catalog -> XborderException(e.code, null, e.detail)
    is FfiException.Claim -> XborderException(e.code, e.field, e.detail)
    is FfiException.Json -> XborderException(e.code, null, e.detail)
    is FfiException.Document -> XborderException(e.code, null, e.detail)
    is FfiException.Form -> XborderException(e.code, e.field, e.detail)
    is FfiException.Pagination -> XborderException(e.code, e.field, e.detail)
    is FfiException.CatchUp -> XborderException(e.code, e.field, e.detail)
    is FfiException.Api -> XborderException(e.code, null, e.detail, api = apiErrorInfo(e.answer))
}

/** Runs one generated call; its XborderException comes out as dev.xborder.XborderException. */
internal inline fun <T> call(block: () -> T): T = try {
    block()
} catch (e: FfiException) {
    throw exception(e)
}

// Enums: the same constants in the same order (JavaSurfaceTest checks each pair). -----------------

internal fun action(v: dev.xborder.ffi.Action): Action = Action.valueOf(v.name)
internal fun kind(v: dev.xborder.ffi.EventKind): EventKind = EventKind.valueOf(v.name)
internal fun issueCode(v: dev.xborder.ffi.IssueCode): IssueCode = IssueCode.valueOf(v.name)
internal fun fieldSource(v: dev.xborder.ffi.FieldSource): FieldSource = FieldSource.valueOf(v.name)
internal fun outcome(v: dev.xborder.ffi.ClaimOutcome): ClaimOutcome = ClaimOutcome.valueOf(v.name)
internal fun accountKind(v: dev.xborder.ffi.AccountKind): AccountKind = AccountKind.valueOf(v.name)
internal fun accountState(v: dev.xborder.ffi.AccountState): AccountState = AccountState.valueOf(v.name)
internal fun reason(v: dev.xborder.ffi.Reason): Reason = Reason.valueOf(v.name)
internal fun formSource(v: dev.xborder.ffi.FormSource): FormSource = FormSource.valueOf(v.name)
internal fun formInput(v: dev.xborder.ffi.FormInput): FormInput = FormInput.valueOf(v.name)
internal fun retry(v: dev.xborder.ffi.Retry): Retry = Retry.valueOf(v.name)

internal fun ffi(v: Action) = dev.xborder.ffi.Action.valueOf(v.name)
internal fun ffi(v: EventKind) = dev.xborder.ffi.EventKind.valueOf(v.name)
internal fun ffi(v: IssueCode) = dev.xborder.ffi.IssueCode.valueOf(v.name)
internal fun ffi(v: FieldSource) = dev.xborder.ffi.FieldSource.valueOf(v.name)
internal fun ffi(v: ClaimOutcome) = dev.xborder.ffi.ClaimOutcome.valueOf(v.name)
internal fun ffi(v: AccountKind) = dev.xborder.ffi.AccountKind.valueOf(v.name)
internal fun ffi(v: AccountState) = dev.xborder.ffi.AccountState.valueOf(v.name)
internal fun ffi(v: Reason) = dev.xborder.ffi.Reason.valueOf(v.name)
internal fun ffi(v: FormSource) = dev.xborder.ffi.FormSource.valueOf(v.name)
internal fun ffi(v: FormInput) = dev.xborder.ffi.FormInput.valueOf(v.name)
internal fun ffi(v: Retry) = dev.xborder.ffi.Retry.valueOf(v.name)

// Records. -----------------------------------------------------------------------------------------

internal fun ffi(v: DecodeLimits) = dev.xborder.ffi.DecodeLimits(v.maxBodyBytes.toULong(), v.maxDepth.toULong())
internal fun limits(v: dev.xborder.ffi.DecodeLimits) =
    DecodeLimits(long("maxBodyBytes", v.maxBodyBytes), long("maxDepth", v.maxDepth))

internal fun envelope(v: dev.xborder.ffi.Envelope) =
    Envelope(v.id, v.event, kind(v.kind), v.entityId, v.entityType, v.dataJson)

internal fun decision(v: dev.xborder.ffi.Decision) =
    Decision(action(v.action), v.acknowledges, v.errorCode, v.errorField, v.envelope?.let(::envelope), reply(v.reply))

internal fun classification(v: dev.xborder.ffi.EventClassification) = EventClassification(kind(v.kind), v.entity, v.action)

internal fun rejected(v: dev.xborder.ffi.RejectedEvent) = RejectedEvent(v.event, kind(v.reason))

internal fun registration(v: dev.xborder.ffi.RegistrationCheck) =
    RegistrationCheck(v.ok, v.code, v.rejected.map(::rejected), v.events)

internal fun validation(v: dev.xborder.ffi.BeneficiaryValidation) = BeneficiaryValidation(v.valid, v.issues.map {
    Issue(it.path, issueCode(it.code), it.message, it.label, it.reason?.let(::reason), params(it.params))
})

internal fun params(v: dev.xborder.ffi.AccountParams) =
    AccountParams(int("expected", v.expected), int("actual", v.actual), v.country)

internal fun accountCheck(v: dev.xborder.ffi.AccountCheck) = AccountCheck(
    accountState(v.state), v.electronic, v.display, v.code?.let(::issueCode), v.reason?.let(::reason),
    v.params?.let(::params), v.message,
)

internal fun formField(v: dev.xborder.ffi.FormField) = FormField(
    v.path, v.required, formSource(v.source), formInput(v.input), v.options.map { FormOption(it.value, it.label) },
    v.account?.let(::accountKind), v.length?.let { AccountLength(int("min", it.min), int("max", it.max)) }, v.label,
)

internal fun field(v: dev.xborder.ffi.RequiredField) = RequiredField(v.path, v.description, fieldSource(v.source))

internal fun ffi(v: PageRequest) = dev.xborder.ffi.PageRequest(v.page?.toULong(), v.pageSize?.toULong())

internal fun pageInfo(v: dev.xborder.ffi.PageInfo) = PageInfo(
    long("total", v.total), long("page", v.page), long("pageSize", v.pageSize), long("totalPages", v.totalPages),
    v.hasNext, v.hasNextConflict, v.hasPrevious, long("firstItem", v.firstItem), long("lastItem", v.lastItem),
    long("nextPage", v.nextPage),
)

internal fun drift(v: dev.xborder.ffi.Drift) =
    Drift(v.code, long("previousTotal", v.previousTotal), long("total", v.total), long("count", v.count), v.hasNext)

internal fun walkStep(v: dev.xborder.ffi.WalkStep) = WalkStep(v.recordsJson, pageInfo(v.info), v.drifts.map(::drift))

internal fun reply(v: dev.xborder.ffi.ClaimReply) = ClaimReply(v.status.toInt(), long("retryAfterS", v.retryAfterS))

internal fun need(v: dev.xborder.ffi.ClaimNeed): ClaimNeed = when (v) {
    is dev.xborder.ffi.ClaimNeed.Load -> ClaimNeed.Load(v.id, storeTime(v.time))
    is dev.xborder.ffi.ClaimNeed.CompareAndSet -> ClaimNeed.CompareAndSet(v.id, v.expected, v.new, storeTime(v.time))
    is dev.xborder.ffi.ClaimNeed.Done -> ClaimNeed.Done(outcome(v.outcome))
}

/** A store written against dev.xborder.ClaimStore, as the generated interface Rust calls. */
internal class StoreAdapter(private val store: ClaimStore) : dev.xborder.ffi.ClaimStore {
    override fun load(id: String, time: dev.xborder.ffi.StoreTime): String? = store.load(id, storeTime(time))
    override fun compareAndSet(id: String, expected: String?, new: String?, time: dev.xborder.ffi.StoreTime): Boolean =
        store.compareAndSet(id, expected, new, storeTime(time))
}

internal fun deliveryAnswer(v: dev.xborder.ffi.HandlingAnswer) =
    DeliveryAnswer(v.reply.status.toInt(), long("retryAfterS", v.reply.retryAfterS), v.outcome?.let(::outcome), v.code, v.persisted)

internal fun act(v: dev.xborder.ffi.HandlingAct): HandlingAct = when (v) {
    is dev.xborder.ffi.HandlingAct.Claim -> HandlingAct.Claim(v.id)
    is dev.xborder.ffi.HandlingAct.Persist -> HandlingAct.Persist(envelope(v.envelope))
    is dev.xborder.ffi.HandlingAct.Complete -> HandlingAct.Complete(v.id)
    is dev.xborder.ffi.HandlingAct.Release -> HandlingAct.Release(v.id)
    is dev.xborder.ffi.HandlingAct.Load -> HandlingAct.Load(v.id, storeTime(v.time))
    is dev.xborder.ffi.HandlingAct.CompareAndSet -> HandlingAct.CompareAndSet(v.id, v.expected, v.new, storeTime(v.time))
    is dev.xborder.ffi.HandlingAct.Commit -> HandlingAct.Commit(v.id)
    is dev.xborder.ffi.HandlingAct.Answer -> HandlingAct.Answer(deliveryAnswer(v.answer))
}

internal fun handlingStep(v: dev.xborder.ffi.HandlingStep) = HandlingStep(v.step, v.outcome?.let(::outcome), v.code)

// Receiver, Claims -> DeliveryHandling. ------------------------------------------------------------

/**
 * The generated object behind each hand-written Receiver and Claims, for DeliveryHandling (the
 * same reason as Catalogs: no package-private member in Kotlin). Weak keys: an entry goes with
 * its hand-written object.
 */
internal object Inner {
    private val map = java.util.Collections.synchronizedMap(java.util.WeakHashMap<Any, Any>())

    fun <T : Any> register(outer: Any, inner: T): T {
        map[outer] = inner
        return inner
    }

    fun receiver(outer: dev.xborder.Receiver): dev.xborder.ffi.Receiver = map[outer] as dev.xborder.ffi.Receiver
    fun catchUp(outer: dev.xborder.CatchUp): dev.xborder.ffi.CatchUp = map[outer] as dev.xborder.ffi.CatchUp
    fun recovery(outer: dev.xborder.Recovery): dev.xborder.ffi.Recovery = map[outer] as dev.xborder.ffi.Recovery
    fun handling(outer: dev.xborder.DeliveryHandling): dev.xborder.ffi.DeliveryHandling =
        map[outer] as dev.xborder.ffi.DeliveryHandling
    fun claims(outer: dev.xborder.Claims): dev.xborder.ffi.Claims = map[outer] as dev.xborder.ffi.Claims
}

internal fun openHandling(
    receiver: dev.xborder.Receiver, claims: dev.xborder.Claims?, body: ByteArray, signature: String?, token: String,
    leaseMs: Long?, windowMs: Long?, inTransaction: Boolean,
): dev.xborder.ffi.DeliveryHandling {
    val lease = u64("leaseMs", leaseMs)
    val window = u64("windowMs", windowMs)
    val rx = Inner.receiver(receiver)
    return call {
        when {
            claims != null -> dev.xborder.ffi.DeliveryHandling(rx, Inner.claims(claims), body, signature, token, inTransaction)
            lease != null -> dev.xborder.ffi.DeliveryHandling.withStoreSteps(rx, body, signature, token, lease, window, inTransaction)
            else -> dev.xborder.ffi.DeliveryHandling.withStoreSteps(rx, body, signature, token, windowMs = window, inTransaction = inTransaction)
        }
    }
}

/** The handling of [recovery]'s next event, over [claims] or (null) the host's store; null when
 *  every event was handled. */
internal fun openRecovered(
    recovery: dev.xborder.Recovery, receiver: dev.xborder.Receiver, claims: dev.xborder.Claims?, token: String,
    leaseMs: Long?, windowMs: Long?, inTransaction: Boolean,
): dev.xborder.ffi.DeliveryHandling? {
    val lease = u64("leaseMs", leaseMs)
    val window = u64("windowMs", windowMs)
    val r = Inner.recovery(recovery)
    val rx = Inner.receiver(receiver)
    return call {
        when {
            claims != null -> r.handling(rx, Inner.claims(claims), token, inTransaction)
            lease != null -> r.handlingWithStoreSteps(rx, token, lease, window, inTransaction)
            else -> r.handlingWithStoreSteps(rx, token, windowMs = window, inTransaction = inTransaction)
        }
    }
}

// The API's error answers and the catch-up. ---------------------------------------------------------

internal fun httpHeaders(headers: Map<String, String>) = headers.map { (k, v) -> dev.xborder.ffi.HttpHeader(k, v) }

internal fun requestId(v: dev.xborder.ffi.RequestId): RequestId = when (v) {
    is dev.xborder.ffi.RequestId.Text -> RequestId.Text(v.value)
    is dev.xborder.ffi.RequestId.Integer -> RequestId.Integer(v.value)
}

internal fun apiErrorInfo(v: dev.xborder.ffi.ApiErrorInfo) = ApiErrorInfo(
    v.status.toInt(), v.code, v.message, v.details, v.requestId?.let(::requestId), retry(v.retry), long("afterMs", v.afterMs),
)

internal fun externalEvent(v: dev.xborder.ffi.ExternalEvent) =
    ExternalEvent(v.id, v.event, v.entityId, v.entityType, v.createdAt, v.dataJson)

internal fun fetched(v: dev.xborder.ffi.Fetched): Fetched = when (v) {
    is dev.xborder.ffi.Fetched.Page -> Fetched.Page(v.drifts.map(::drift))
    is dev.xborder.ffi.Fetched.Wait -> Fetched.Wait(long("ms", v.ms))
}

// Catalog -> Receiver. ------------------------------------------------------------------------------

/**
 * The generated catalog behind each hand-written one, for Receiver, which copies it (Kotlin has
 * no package-private member, and an `internal` one would be public to Java).
 */
internal object Catalogs {
    private val map = java.util.Collections.synchronizedMap(java.util.WeakHashMap<dev.xborder.Catalog, dev.xborder.ffi.Catalog>())

    fun register(outer: dev.xborder.Catalog, inner: dev.xborder.ffi.Catalog): dev.xborder.ffi.Catalog {
        map[outer] = inner
        return inner
    }

    fun of(outer: dev.xborder.Catalog?): dev.xborder.ffi.Catalog? = outer?.let { map[it] }
}

// Constructors with core's defaults: an argument not given (null) is left out of the generated
// call, so its default is the generated one (core's, through uniffi's metadata), never ours.

internal fun openReceiver(secret: String?, secrets: List<String>?, window: Long?, limits: DecodeLimits?, catalog: dev.xborder.Catalog?) = call {
    val l = limits?.let(::ffi)
    val c = Catalogs.of(catalog)
    val w = u64("window", window)
    when {
        secrets != null && w != null -> dev.xborder.ffi.Receiver.withSecrets(secrets, w, l, c)
        secrets != null -> dev.xborder.ffi.Receiver.withSecrets(secrets, limits = l, catalog = c)
        w != null -> dev.xborder.ffi.Receiver(secret!!, w, l, c)
        else -> dev.xborder.ffi.Receiver(secret!!, limits = l, catalog = c)
    }
}

internal fun openClaims(store: ClaimStore?, leaseMs: Long?, windowMs: Long?, capacity: Long?): dev.xborder.ffi.Claims {
    val lease = u64("leaseMs", leaseMs)
    val window = u64("windowMs", windowMs)
    val cap = u64("capacity", capacity)
    return call { claims(store, lease, window, cap) }
}

private fun claims(store: ClaimStore?, lease: ULong?, window: ULong?, cap: ULong?): dev.xborder.ffi.Claims {
    if (store != null) {
        val adapter = StoreAdapter(store)
        return if (lease != null) dev.xborder.ffi.Claims.withStore(adapter, lease, window)
        else dev.xborder.ffi.Claims.withStore(adapter, windowMs = window)
    }
    return when {
        lease != null && cap != null -> dev.xborder.ffi.Claims(lease, window, cap)
        lease != null -> dev.xborder.ffi.Claims(lease, window)
        cap != null -> dev.xborder.ffi.Claims(windowMs = window, capacity = cap)
        else -> dev.xborder.ffi.Claims(windowMs = window)
    }
}

internal fun openTask(step: String, id: String, token: String, atMs: Long, leaseMs: Long?, windowMs: Long?): dev.xborder.ffi.ClaimTask {
    val at = u64("atMs", atMs)
    val lease = u64("leaseMs", leaseMs)
    val window = u64("windowMs", windowMs)
    return call {
        if (lease != null) dev.xborder.ffi.ClaimTask(step, id, token, at, lease, window)
        else dev.xborder.ffi.ClaimTask(step, id, token, at, windowMs = window)
    }
}
