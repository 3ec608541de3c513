// The API's error answers (contract v4 `api.error`): what an error answer says and whether to send
// the request again. Every rule is core's; this file converts.
package dev.xborder

import dev.xborder.internal.apiErrorInfo
import dev.xborder.internal.call
import dev.xborder.internal.ffi
import dev.xborder.internal.httpHeaders
import dev.xborder.internal.u16

/** The API's error answers: [readApiError] from the body you parsed, [readApiErrorText] from the
 *  response text as received. */
object ApiErrors {
    /** What the API's error answer to a [method] request says: its [status], [headers] (for
     *  `Retry-After`, names in any case) and [bodyJson], the body as JSON text (null: none).
     *  Throws `MALFORMED_JSON` when [bodyJson] is not JSON. */
    @JvmStatic
    @JvmOverloads
    fun readApiError(method: String, status: Int, headers: Map<String, String> = emptyMap(), bodyJson: String? = null): ApiErrorInfo {
        val s = u16("status", status)
        return apiErrorInfo(call { dev.xborder.ffi.readApiError(method, s, httpHeaders(headers), bodyJson) })
    }

    /** [readApiError] from the response [text] as received: parsed once by core; a text that is
     *  not JSON (an HTML error page, nothing) reads as no body. */
    @JvmStatic
    @JvmOverloads
    fun readApiErrorText(method: String, status: Int, text: String, headers: Map<String, String> = emptyMap()): ApiErrorInfo {
        val s = u16("status", status)
        return apiErrorInfo(call { dev.xborder.ffi.readApiErrorText(method, s, text, httpHeaders(headers)) })
    }
}

/** What a client may do after an error answer (the API takes no idempotency key). [toString] is
 *  FORMAT.md's name (`after`, `check_first`, `no`), as core writes it. */
enum class Retry {
    /** Send it again, after [ApiErrorInfo.afterMs] when given: a 429, or a 408/5xx on a `GET`,
     *  `HEAD`, `OPTIONS`, `PUT`, `DELETE`. */
    AFTER,

    /** It may have taken effect (a 408/5xx on a `POST`): look it up first, never retry it blind. */
    CHECK_FIRST,

    /** Do not send it again as it is. */
    NO;

    private val text: String by lazy { ffi(this).toString() }

    override fun toString(): String = text
}

/** The `requestId` of an error answer, as the API sent it. */
sealed class RequestId {
    /** A string id (`"req_9"`). */
    data class Text(val value: String) : RequestId()

    /** An integer id (`41`). */
    data class Integer(val value: Long) : RequestId()
}

/** An error answer of the API as core reads it: the HTTP [status], the API's [code] and [message]
 *  (null when not strings), the strings of its [details] list, its [requestId], and [retry] with
 *  [afterMs] (only with [Retry.AFTER]: the delay the answer gave). */
data class ApiErrorInfo(
    val status: Int,
    val code: String?,
    val message: String?,
    val details: List<String>?,
    val requestId: RequestId?,
    val retry: Retry,
    val afterMs: Long?,
)
