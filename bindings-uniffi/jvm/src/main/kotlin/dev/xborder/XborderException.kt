package dev.xborder

/**
 * What xborder refuses, with FORMAT.md's stable [code] (`SIGNATURE_MISMATCH`, `MALFORMED_JSON`,
 * `INVALID_STEP`, `STORE_UNAVAILABLE`, ...). Unchecked: a lambda handler needs no try/catch.
 *
 * Its message is `CODE: detail` (`CODE (field): detail` where a field is named), the code once.
 *
 * A wrong kind of value given to the API (a negative count, a status that is not an HTTP status)
 * is an [IllegalArgumentException] naming the parameter, before anything reaches core.
 */
class XborderException @JvmOverloads constructor(
    /** The stable code of FORMAT.md: compare it, never the message. */
    val code: String,
    /** The input concerned, where the code names one: an envelope field (`id`, `entity.type`),
     *  a list parameter or filter key, a claim step's input (`do`, `id`, `token`), a form's
     *  choice refused as `INVALID_VALUE` (`country`, `paymentType`, `ownerType`); else null. */
    val field: String?,
    /** What happened, for people (never to be parsed). */
    val detail: String,
    /** `VALIDATION_FAILED` from createWebhookBody: the names refused; otherwise empty. */
    val rejected: List<RejectedEvent> = emptyList(),
    /** `API_ERROR` (a catch-up's page the API refused): the API's answer as core read it (its
     *  status, code, message, request id, retry); otherwise null. */
    val api: ApiErrorInfo? = null,
) : RuntimeException((if (field == null) code else "$code ($field)") + ": " + detail.removePrefix("$code: "))
