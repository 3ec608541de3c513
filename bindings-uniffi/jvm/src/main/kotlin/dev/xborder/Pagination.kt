// Pagination: list queries, page info, and a walker over every page of a list.
package dev.xborder

import dev.xborder.internal.call
import dev.xborder.internal.ffi
import dev.xborder.internal.pageInfo
import dev.xborder.internal.walkStep

/** List endpoints: the query string of a list's parameters, and what a list response says. */
object Pagination {
    /** The query string (`page=0&pageSize=10&...`) of [paramsJson], the list parameters as JSON
     *  (`{"pageSize":50,"filters":{"status":"success"}}`). Throws `INVALID_PAGE`,
     *  `UNKNOWN_PARAMETER` (with [XborderException.field]), ... */
    @JvmStatic
    fun listQuery(paramsJson: String): String = call { dev.xborder.ffi.listQuery(paramsJson) }

    /** What a list response (its JSON text) says about its page, checked against the [request]
     *  that asked for it (null: not checked). Throws `MALFORMED_RESPONSE`, `OUT_OF_RANGE`. */
    @JvmStatic
    @JvmOverloads
    fun pageInfo(responseJson: String, request: PageRequest? = null): PageInfo =
        pageInfo(call { dev.xborder.ffi.pageInfo(responseJson, request?.let(::ffi)) })
}

/** Walks every page of a list: [nextQuery] says what to ask for (null: done), [feed] takes the
 *  response and gives each record once. */
class PageWalker(paramsJson: String) : AutoCloseable {
    private val inner = call { dev.xborder.ffi.PageWalker(paramsJson) }

    /** The query string of the next page to fetch; null when the walk is over. */
    fun nextQuery(): String? = inner.nextQuery()

    /** The next page's response text: its new records (each its JSON text) and what drifted. */
    fun feed(responseJson: String): WalkStep = walkStep(call { inner.feed(responseJson) })

    fun isDone(): Boolean = inner.isDone()

    override fun close() = inner.close()
}

/** The page and page size a request asked for (null: not given). */
data class PageRequest @JvmOverloads constructor(val page: Long? = null, val pageSize: Long? = null) {
    init {
        require(page == null || page >= 0) { "page must be a number >= 0, got $page" }
        require(pageSize == null || pageSize >= 0) { "pageSize must be a number >= 0, got $pageSize" }
    }
}

/** One page of a list, as core reads the response. */
data class PageInfo(
    val total: Long,
    val page: Long,
    val pageSize: Long,
    val totalPages: Long,
    val hasNext: Boolean,
    val hasNextConflict: Boolean,
    val hasPrevious: Boolean,
    val firstItem: Long,
    val lastItem: Long,
    val nextPage: Long?,
)

/** What one fed page gave: its new records (JSON texts), its page, and what drifted. */
data class WalkStep(val recordsJson: List<String>, val info: PageInfo, val drifts: List<Drift>)

/** Something that changed between pages: [code] is core's (`REPEATED_RECORDS`, `TOTAL_CHANGED`,
 *  `STALLED`, ...), with the figures that go with it. */
data class Drift(val code: String, val previousTotal: Long?, val total: Long?, val count: Long?, val hasNext: Boolean?)
