// Java-friendly entry points for the generated binding (dev/xborder/xborder.kt).
//
// uniffi maps Rust's u32/u64 to Kotlin's UInt/ULong. Kotlin compiles a function taking one of
// them to a mangled JVM name (`step-xxxx`), a constructor taking one to a synthetic constructor
// Java cannot call, and a property of one to a mangled getter. Everything else in the binding
// (Catalog(), PageWalker(String), verify, sign, listQuery, validateBeneficiary, the records'
// other fields, the enums) is usable from Java as generated, through `XborderKt` for the free
// functions.
//
// This object only converts: each function takes `long`/`int` (a negative value throws
// IllegalArgumentException, it is never reinterpreted as a huge unsigned one) or returns them,
// and calls the one generated function of the same name. No default here is xborder's own:
// an omitted argument is the generated default, passed through by calling without it.
@file:JvmName("XborderJavaKt")

package dev.xborder

object XborderJava {
    private fun u64(name: String, v: Long): ULong {
        require(v >= 0) { "$name must be >= 0 (got $v)" }
        return v.toULong()
    }

    private fun u64(name: String, v: Long?): ULong? = v?.let { u64(name, it) }

    private fun u32(name: String, v: Int): UInt {
        require(v >= 0) { "$name must be >= 0 (got $v)" }
        return v.toUInt()
    }

    /** A value above Long.MAX_VALUE cannot be returned as a long: it throws, never wraps. */
    private fun s64(name: String, v: ULong): Long {
        check(v <= Long.MAX_VALUE.toULong()) { "$name $v does not fit in a long" }
        return v.toLong()
    }

    private fun s64(name: String, v: ULong?): Long? = v?.let { s64(name, it) }

    // Receiver ----------------------------------------------------------------------------------

    /** `Receiver(secret)`: one secret, the generated default window. */
    @JvmStatic fun receiver(secret: String): Receiver = Receiver(secret)

    /** `Receiver(secret, window, limits, catalog)`. */
    @JvmStatic fun receiver(secret: String, window: Long, limits: DecodeLimits?, catalog: Catalog?): Receiver =
        Receiver(secret, u64("window", window), limits, catalog)

    /** `Receiver(secret, catalog = catalog)`. */
    @JvmStatic fun receiver(secret: String, catalog: Catalog): Receiver = Receiver(secret, catalog = catalog)

    /** `Receiver.withSecrets(secrets)`: a key rotation, the list named. */
    @JvmStatic @Throws(XborderException::class)
    fun receiverWithSecrets(secrets: List<String>): Receiver = Receiver.withSecrets(secrets)

    @JvmStatic @Throws(XborderException::class)
    fun receiverWithSecrets(secrets: List<String>, window: Long, limits: DecodeLimits?, catalog: Catalog?): Receiver =
        Receiver.withSecrets(secrets, u64("window", window), limits, catalog)

    // Decode limits -----------------------------------------------------------------------------

    @JvmStatic fun decodeLimits(maxBodyBytes: Long, maxDepth: Long): DecodeLimits =
        DecodeLimits(u64("maxBodyBytes", maxBodyBytes), u64("maxDepth", maxDepth))

    @JvmStatic fun maxBodyBytes(limits: DecodeLimits): Long = s64("maxBodyBytes", limits.maxBodyBytes)
    @JvmStatic fun maxDepth(limits: DecodeLimits): Long = s64("maxDepth", limits.maxDepth)

    // Catalog and registration ------------------------------------------------------------------

    @JvmStatic fun checkRegistration(events: List<String>): RegistrationCheck = dev.xborder.checkRegistration(events)

    @JvmStatic fun checkRegistration(events: List<String>, existingWebhooks: Int): RegistrationCheck =
        dev.xborder.checkRegistration(events, u32("existingWebhooks", existingWebhooks))

    @JvmStatic fun checkRegistration(catalog: Catalog, events: List<String>): RegistrationCheck =
        catalog.checkRegistration(events)

    @JvmStatic fun checkRegistration(catalog: Catalog, events: List<String>, existingWebhooks: Int): RegistrationCheck =
        catalog.checkRegistration(events, u32("existingWebhooks", existingWebhooks))

    @JvmStatic @Throws(XborderException::class)
    fun createWebhookBody(events: List<String>, url: String): String = dev.xborder.createWebhookBody(events, url)

    @JvmStatic @Throws(XborderException::class)
    fun createWebhookBody(events: List<String>, url: String, existingWebhooks: Int): String =
        dev.xborder.createWebhookBody(events, url, u32("existingWebhooks", existingWebhooks))

    @JvmStatic @Throws(XborderException::class)
    fun createWebhookBody(catalog: Catalog, events: List<String>, url: String): String =
        catalog.createWebhookBody(events, url)

    @JvmStatic @Throws(XborderException::class)
    fun createWebhookBody(catalog: Catalog, events: List<String>, url: String, existingWebhooks: Int): String =
        catalog.createWebhookBody(events, url, u32("existingWebhooks", existingWebhooks))

    // Pagination --------------------------------------------------------------------------------

    /** `PageRequest(page, pageSize)`; null leaves either unset. */
    @JvmStatic fun pageRequest(page: Long?, pageSize: Long?): PageRequest =
        PageRequest(u64("page", page), u64("pageSize", pageSize))

    @JvmStatic fun page(request: PageRequest): Long? = s64("page", request.page)
    @JvmStatic fun pageSize(request: PageRequest): Long? = s64("pageSize", request.pageSize)

    @JvmStatic fun total(info: PageInfo): Long = s64("total", info.total)
    @JvmStatic fun page(info: PageInfo): Long = s64("page", info.page)
    @JvmStatic fun pageSize(info: PageInfo): Long = s64("pageSize", info.pageSize)
    @JvmStatic fun totalPages(info: PageInfo): Long = s64("totalPages", info.totalPages)
    @JvmStatic fun firstItem(info: PageInfo): Long = s64("firstItem", info.firstItem)
    @JvmStatic fun lastItem(info: PageInfo): Long = s64("lastItem", info.lastItem)
    @JvmStatic fun nextPage(info: PageInfo): Long? = s64("nextPage", info.nextPage)

    @JvmStatic fun previousTotal(drift: Drift): Long? = s64("previousTotal", drift.previousTotal)
    @JvmStatic fun total(drift: Drift): Long? = s64("total", drift.total)
    @JvmStatic fun count(drift: Drift): Long? = s64("count", drift.count)

    // Claims ------------------------------------------------------------------------------------

    /** `Claims()`: in-memory claims with the generated defaults. */
    @JvmStatic fun claims(): Claims = Claims()

    @JvmStatic fun claims(leaseMs: Long, windowMs: Long?, capacity: Long): Claims =
        Claims(u64("leaseMs", leaseMs), u64("windowMs", windowMs), u64("capacity", capacity))

    @JvmStatic fun claimsWithStore(store: ClaimStore): Claims = Claims.withStore(store)

    @JvmStatic fun claimsWithStore(store: ClaimStore, leaseMs: Long, windowMs: Long?): Claims =
        Claims.withStore(store, u64("leaseMs", leaseMs), u64("windowMs", windowMs))

    @JvmStatic @Throws(XborderException::class)
    fun step(claims: Claims, step: String, id: String, token: String, atMs: Long): ClaimOutcome =
        claims.step(step, id, token, u64("atMs", atMs))

    @JvmStatic fun claimTask(step: String, id: String, token: String, atMs: Long): ClaimTask =
        ClaimTask(step, id, token, u64("atMs", atMs))

    @JvmStatic fun claimTask(step: String, id: String, token: String, atMs: Long, leaseMs: Long, windowMs: Long?): ClaimTask =
        ClaimTask(step, id, token, u64("atMs", atMs), u64("leaseMs", leaseMs), u64("windowMs", windowMs))

    @JvmStatic fun ttlMs(need: ClaimNeed.CompareAndSet): Long? = s64("ttlMs", need.ttlMs)

    /** What to answer the provider after `step` gave `outcome` (`Claims.reply`): null after `claimed`. */
    @JvmStatic @Throws(XborderException::class)
    fun reply(claims: Claims, step: String, outcome: ClaimOutcome): ClaimReply? = claims.reply(step, outcome)

    /** What to answer the provider when a claim step threw `e` (`claimErrorReply` of its code). */
    @JvmStatic fun errorReply(e: XborderException): ClaimReply = claimErrorReply(e.errorCode())

    /** A reply's HTTP status: 200, 500 or 503. */
    @JvmStatic fun status(reply: ClaimReply): Int = reply.status.toInt()

    /** A reply's `Retry-After`, in seconds; null when none goes with it. */
    @JvmStatic fun retryAfterS(reply: ClaimReply): Long? = s64("retryAfterS", reply.retryAfterS)

    /** `ClaimReply(status, retryAfterS)`, as a test double of a reply would be made. */
    @JvmStatic fun claimReply(status: Int, retryAfterS: Long?): ClaimReply {
        require(status in 0..0xFFFF) { "status $status is not an HTTP status" }
        return ClaimReply(status.toUShort(), u64("retryAfterS", retryAfterS))
    }
}

/**
 * A claim store written in Java: `compareAndSet` takes the time to live as a `Long` (null: keep
 * the entry forever). It only converts the generated interface's `ULong?`.
 */
abstract class JavaClaimStore : ClaimStore {
    abstract override fun load(id: String): String?

    /** Atomically: when the entry of `id` is `expected` (null: absent), make it `new` (null: remove). */
    abstract fun compareAndSetEntry(id: String, expected: String?, new: String?, ttlMs: Long?): Boolean

    final override fun compareAndSet(id: String, expected: String?, new: String?, ttlMs: ULong?): Boolean =
        compareAndSetEntry(id, expected, new, ttlMs?.let { if (it > Long.MAX_VALUE.toULong()) Long.MAX_VALUE else it.toLong() })
}
