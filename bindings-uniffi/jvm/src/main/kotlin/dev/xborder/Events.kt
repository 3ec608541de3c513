// Events: names, the registration check, matching, and a catalog for names this release lacks.
package dev.xborder

import dev.xborder.internal.Catalogs
import dev.xborder.internal.Speed
import dev.xborder.internal.call
import dev.xborder.internal.classification
import dev.xborder.internal.ffi
import dev.xborder.internal.registration
import dev.xborder.internal.u32

/** The built-in event catalog: classification, the registration check, matching. */
object Events {
    /** How [name] (`order:created`, `order:*`) stands in the built-in catalog. */
    @JvmStatic
    fun classify(name: String): EventClassification = classification(Speed.classifyEvent(name))

    /** Whether the server would accept a webhook for [events], given [existingWebhooks] already
     *  registered (null: none; 0 to 4,294,967,295, else an IllegalArgumentException). */
    @JvmStatic
    @JvmOverloads
    fun checkRegistration(events: List<String>, existingWebhooks: Long? = null): RegistrationCheck = registration(
        if (existingWebhooks == null) dev.xborder.ffi.checkRegistration(events)
        else dev.xborder.ffi.checkRegistration(events, u32("existingWebhooks", existingWebhooks)),
    )

    /** The JSON body of `POST /v1/webhooks` for [events] and [url]; throws `VALIDATION_FAILED`
     *  (with [XborderException.rejected]) or `WEBHOOK_LIMIT_REACHED`, as [checkRegistration] says. */
    @JvmStatic
    @JvmOverloads
    fun createWebhookBody(events: List<String>, url: String, existingWebhooks: Long? = null): String = call {
        if (existingWebhooks == null) dev.xborder.ffi.createWebhookBody(events, url)
        else dev.xborder.ffi.createWebhookBody(events, url, u32("existingWebhooks", existingWebhooks))
    }

    /** Whether a webhook subscribed to [subscriptions] (names and wildcards) receives [event]. */
    @JvmStatic
    fun matches(subscriptions: List<String>, event: String): Boolean = dev.xborder.ffi.eventMatches(subscriptions, event)
}

/**
 * The built-in catalog plus the live names and wildcards a host adds (`order:rejected`,
 * `fiat_deposit:*`) before this release knows them. Answers as [Events] does, with the added
 * names. Safe to share between threads. A [Receiver] built with it keeps its own copy: add names
 * first.
 */
class Catalog : AutoCloseable {
    private val inner = Catalogs.register(this, dev.xborder.ffi.Catalog())

    /** Adds a live name (`<entity>:<action>`); throws `INVALID_EVENT_NAME`. */
    fun addLive(name: String) {
        call { inner.addLive(name) }
    }

    /** Adds a wildcard (`<entity>:*`); throws `INVALID_EVENT_NAME`. */
    fun addWildcard(name: String) {
        call { inner.addWildcard(name) }
    }

    fun classify(name: String): EventClassification = classification(inner.classify(name))

    fun isLive(name: String): Boolean = inner.isLive(name)

    @JvmOverloads
    fun checkRegistration(events: List<String>, existingWebhooks: Long? = null): RegistrationCheck = registration(
        if (existingWebhooks == null) inner.checkRegistration(events)
        else inner.checkRegistration(events, u32("existingWebhooks", existingWebhooks)),
    )

    @JvmOverloads
    fun createWebhookBody(events: List<String>, url: String, existingWebhooks: Long? = null): String = call {
        if (existingWebhooks == null) inner.createWebhookBody(events, url)
        else inner.createWebhookBody(events, url, u32("existingWebhooks", existingWebhooks))
    }

    fun matches(subscriptions: List<String>, event: String): Boolean = inner.matches(subscriptions, event)

    override fun close() = inner.close()
}

/** `live`, `planned`, `wildcard`, `unknown` or `invalid` ([toString], as core writes it). */
enum class EventKind {
    LIVE, PLANNED, WILDCARD, UNKNOWN, INVALID;

    private val text: String by lazy { ffi(this).toString() }

    override fun toString(): String = text
}

/** An event name's kind, and its entity and action where it has them. */
data class EventClassification(val kind: EventKind, val entity: String?, val action: String?)

/** The registration check: [ok], or [code] (`VALIDATION_FAILED`, `WEBHOOK_LIMIT_REACHED`) and the
 *  names [rejected]; [events] are the names as they would be registered. */
data class RegistrationCheck(val ok: Boolean, val code: String?, val rejected: List<RejectedEvent>, val events: List<String>)

/** A name refused at registration, and why (its kind). */
data class RejectedEvent(val event: String, val reason: EventKind)
