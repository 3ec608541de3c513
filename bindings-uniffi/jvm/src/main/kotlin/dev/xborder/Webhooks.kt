// Webhooks: signatures, the envelope, and the receiver that does both and remembers ids.
package dev.xborder

import dev.xborder.internal.call
import dev.xborder.internal.decision
import dev.xborder.internal.envelope
import dev.xborder.internal.ffi
import dev.xborder.internal.limits
import dev.xborder.internal.openReceiver
import dev.xborder.internal.Inner
import dev.xborder.internal.Speed

/** Signing, verifying and decoding webhook deliveries (the raw body bytes, the header as sent). */
object Webhooks {
    /** The `X-Webhook-Signature` of [body] under [secret] (its UTF-8 bytes, whole): lower-case hex
     *  HMAC-SHA256. Throws `EMPTY_SECRET`. */
    @JvmStatic
    fun sign(secret: String, body: ByteArray): String = call { dev.xborder.ffi.sign(secret, body) }

    /** Returns when [signature] (the header as sent, null when absent) signs [body] under [secret];
     *  throws `MISSING_SIGNATURE`, `MALFORMED_SIGNATURE`, `EMPTY_SECRET` or `SIGNATURE_MISMATCH`. */
    @JvmStatic
    fun verify(secret: String, body: ByteArray, signature: String?) {
        call { Speed.verify(secret, body, signature) }
    }

    /** [verify] during a key rotation: any of [secrets] may sign (`EMPTY_SECRET` for an empty list). */
    @JvmStatic
    fun verifyWithSecrets(secrets: List<String>, body: ByteArray, signature: String?) {
        call { dev.xborder.ffi.verifyWithSecrets(secrets, body, signature) }
    }

    /** The envelope of a verified body, within [limits] (null: [DecodeLimits.defaults]). Throws
     *  `BODY_TOO_LARGE`, `NESTING_TOO_DEEP`, `MALFORMED_JSON`, `MISSING_FIELD`, `INVALID_FIELD`,
     *  `ENTITY_MISMATCH` (with [XborderException.field]). */
    @JvmStatic
    @JvmOverloads
    fun decodeEnvelope(body: ByteArray, limits: DecodeLimits? = null): Envelope =
        envelope(call { Speed.decodeEnvelope(body, limits?.let(::ffi)) })
}

/**
 * Verifies, decodes and deduplicates deliveries: [receive] says what to do with each, [commit]
 * records an id once its event is persisted. Keeps the last [window] committed ids in memory
 * (null: core's default, 10,000). Safe to share between threads; close it (or let it be
 * collected) to free its memory.
 */
class Receiver : AutoCloseable {
    private val inner: dev.xborder.ffi.Receiver

    // The speed measure's reference to the same Rust object (dev.xborder.internal.Speed; null when off).
    private val lease: Speed.Lease?

    /** One secret (never split). [catalog] adds event names this release does not know; the
     *  receiver keeps a copy of it. Throws `EMPTY_SECRET`; a negative [window] is an
     *  IllegalArgumentException. */
    @JvmOverloads
    constructor(secret: String, window: Long? = null, limits: DecodeLimits? = null, catalog: Catalog? = null) {
        inner = Inner.register(this, openReceiver(secret, null, window, limits, catalog))
        lease = Speed.lease(this, inner)
    }

    /** A key rotation: a delivery signed with any of [secrets] verifies (`EMPTY_SECRET` when the
     *  list or a secret in it is empty). Also [Receiver.withSecrets]. */
    @JvmOverloads
    constructor(secrets: List<String>, window: Long? = null, limits: DecodeLimits? = null, catalog: Catalog? = null) {
        inner = Inner.register(this, openReceiver(null, secrets, window, limits, catalog))
        lease = Speed.lease(this, inner)
    }

    /** What to do with one delivery: the raw body bytes and the signature header (null: absent). */
    fun receive(body: ByteArray, signature: String?): Decision = decision(Speed.receive(lease, inner, body, signature))

    /** Records [id] as processed, after its event is persisted: a redelivery is then a duplicate. */
    fun commit(id: String) {
        call { Speed.commit(lease, inner, id) }
    }

    override fun close() {
        lease?.close()
        inner.close()
    }

    companion object {
        /** `Receiver(secrets, ...)`: the rotation named. */
        @JvmStatic
        @JvmOverloads
        fun withSecrets(secrets: List<String>, window: Long? = null, limits: DecodeLimits? = null, catalog: Catalog? = null): Receiver =
            Receiver(secrets, window, limits, catalog)
    }
}

/** What to do with a delivery. [toString] is FORMAT.md's name (`process`, ...), as core writes it. */
enum class Action {
    /** Verified, decoded, new, live: persist it, commit its id, answer 2xx. */
    PROCESS,

    /** Verified, decoded, new, but unknown or planned: answer 2xx, do nothing else. */
    IGNORE,

    /** Its id was committed already: answer 2xx, do nothing. */
    DUPLICATE,

    /** Not verified or not decodable: answer non-2xx so the provider retries. */
    REJECT;

    private val text: String by lazy { ffi(this).toString() }

    override fun toString(): String = text
}

/** The decision on one delivery. */
data class Decision(
    val action: Action,
    /** Whether to answer 2xx (every action but reject; for process, once persisted). */
    val acknowledges: Boolean,
    /** The code of a reject (a signature or envelope code). */
    val errorCode: String?,
    /** The envelope field a reject is about, where there is one. */
    val errorField: String?,
    /** The envelope, when the delivery decoded. */
    val envelope: Envelope?,
    /** What to answer the provider (core's): 200 for process (once persisted), ignore and
     *  duplicate; for a reject 400, 413 (a body over the limit), 500 (this service's secret) or
     *  503 with Retry-After (a store that failed). */
    val reply: ClaimReply,
)

/** A decoded delivery. [dataJson] is `entity.data` as JSON text (null when absent). */
data class Envelope(
    val id: String,
    val event: String,
    val kind: EventKind,
    val entityId: String,
    val entityType: String,
    val dataJson: String?,
)

/** Bodies longer than [maxBodyBytes] or nested deeper than [maxDepth] are refused before parsing. */
data class DecodeLimits(val maxBodyBytes: Long, val maxDepth: Long) {
    init {
        require(maxBodyBytes >= 0) { "maxBodyBytes must be a number >= 0, got $maxBodyBytes" }
        require(maxDepth >= 0) { "maxDepth must be a number >= 0, got $maxDepth" }
    }

    companion object {
        /** Core's limits (what a null `limits` means). */
        @JvmStatic
        fun defaults(): DecodeLimits = limits(dev.xborder.ffi.defaultDecodeLimits())
    }
}
