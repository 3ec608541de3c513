// Conformance runner for the Kotlin/JVM package: the public API users import (package dev.xborder,
// bindings-uniffi/jvm/src/main/kotlin) over uniffi's generated code (dev.xborder.ffi, JNA).
// Feeds every vector of every folder in XBORDER_VECTOR_DIRS, and of each file in
// XBORDER_VECTOR_FILES, to the public API and compares per tests/runners/CONTRACT.md (with
// FORMAT.md's v4 matching rules). Vectors are read with Gson as JsonElement trees, so numbers keep
// their exact text when a JSON input is serialised back for the binding.
import com.google.gson.GsonBuilder
import com.google.gson.JsonArray
import com.google.gson.JsonElement
import com.google.gson.JsonNull
import com.google.gson.JsonObject
import com.google.gson.JsonParser
import com.google.gson.JsonPrimitive
import dev.xborder.*
import java.io.File
import java.math.BigDecimal
import java.math.BigInteger
import java.util.Base64
import kotlin.coroutines.Continuation
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.coroutines.resume
import kotlin.coroutines.startCoroutine
import kotlin.coroutines.suspendCoroutine
import kotlin.system.exitProcess

val gson = GsonBuilder().serializeNulls().disableHtmlEscaping().create()

fun json(v: JsonElement): String = gson.toJson(v)

fun obj(vararg pairs: Pair<String, Any?>): JsonObject {
    val o = JsonObject()
    for ((k, v) in pairs) o.add(k, el(v))
    return o
}

fun el(v: Any?): JsonElement = when (v) {
    null -> JsonNull.INSTANCE
    is JsonElement -> v
    is String -> JsonPrimitive(v)
    is Boolean -> JsonPrimitive(v)
    is Number -> JsonPrimitive(v)
    is List<*> -> JsonArray().also { a -> v.forEach { a.add(el(it)) } }
    else -> error("cannot convert ${v::class}")
}

fun JsonObject.str(key: String): String? = get(key)?.takeUnless { it.isJsonNull }?.asString

fun strings(e: JsonElement): List<String> = e.asJsonArray.map { it.asString }

fun bodyBytes(o: JsonObject): ByteArray =
    if (o.has("bodyBase64")) Base64.getDecoder().decode(o.str("bodyBase64"))
    else (o.str("body") ?: "").toByteArray(Charsets.UTF_8)

fun err(e: XborderException): JsonObject = obj("ok" to false, "error" to e.code)

fun classify(i: JsonObject): JsonObject {
    val c = Events.classify(i.str("name")!!)
    val o = obj("kind" to c.kind.toString())
    c.entity?.let { o.addProperty("entity", it) }
    c.action?.let { o.addProperty("action", it) }
    return o
}

fun checkRegistration(i: JsonObject): JsonObject {
    val existing = i.get("existingWebhooks")?.takeUnless { it.isJsonNull }?.asLong
    val r = Events.checkRegistration(strings(i.get("events")), existing)
    if (r.ok) return obj("ok" to true, "events" to r.events)
    return obj("ok" to false, "code" to r.code,
        "rejected" to r.rejected.map { obj("event" to it.event, "reason" to it.reason.toString()) })
}

fun signOp(i: JsonObject): JsonObject = try {
    obj("signature" to Webhooks.sign(i.str("secret")!!, bodyBytes(i)))
} catch (e: XborderException) { err(e) }

fun verifyOp(i: JsonObject): JsonObject = try {
    when {
        i.has("secrets") -> Webhooks.verifyWithSecrets(strings(i.get("secrets")), bodyBytes(i), i.str("signature"))
        i.str("secret") != null -> Webhooks.verify(i.str("secret")!!, bodyBytes(i), i.str("signature"))
        else -> Webhooks.verifyWithSecrets(emptyList(), bodyBytes(i), i.str("signature"))
    }
    obj("ok" to true)
} catch (e: XborderException) { err(e) }

fun decode(i: JsonObject): JsonObject = try {
    val e = Webhooks.decodeEnvelope(bodyBytes(i))
    val o = obj("ok" to true, "id" to e.id, "event" to e.event, "kind" to e.kind.toString(),
        "entityId" to e.entityId, "entityType" to e.entityType)
    e.dataJson?.let { o.add("data", JsonParser.parseString(it)) }
    o
} catch (e: XborderException) {
    err(e).also { o -> e.field?.let { o.addProperty("field", it) } }
}

fun receive(i: JsonObject): JsonObject {
    val deliveries = i.getAsJsonArray("deliveries").map { it.asJsonObject }
    val window = i.get("window")?.takeUnless { it.isJsonNull }?.asLong ?: 10_000L
    val rx = try {
        Receiver(i.str("secret")!!, window)
    } catch (e: XborderException) {
        return obj("decisions" to deliveries.map { obj("action" to "reject", "error" to e.code) })
    }
    rx.use {
        val decisions = deliveries.map { d ->
            val dec = rx.receive(bodyBytes(d), d.str("signature"))
            val o = obj("action" to dec.action.toString())
            dec.errorCode?.let { o.addProperty("error", it) }
            val commit = d.get("commit")?.takeUnless { it.isJsonNull }?.asBoolean ?: true
            if ((dec.action == Action.PROCESS || dec.action == Action.IGNORE) && commit) {
                rx.commit(dec.envelope!!.id)
            }
            o
        }
        return obj("decisions" to decisions)
    }
}

/**
 * A vector's document as the binding takes it, the response text: a JSON string is that text
 * itself (never re-serialised), any other value its JSON text; null or absent is not given.
 */
fun document(e: JsonElement?): String? = when {
    e == null || e.isJsonNull -> null
    e.isJsonPrimitive && e.asJsonPrimitive.isString -> e.asString
    else -> json(e)
}

fun validate(i: JsonObject): JsonObject {
    val banks = i.get("banks")?.takeUnless { it.isJsonNull }?.asJsonObject
    val v = Beneficiaries.validate(
        json(i.get("draft")),
        document(i.get("rules")),
        banks?.str("country"),
        document(banks?.get("response")),
    )
    return obj("valid" to v.valid, "issues" to v.issues.map(::issue))
}

/** An issue as the wire has it; `reason` and `params` only on an account-detail issue. */
fun issue(i: Issue): JsonObject {
    val o = obj("path" to i.path, "code" to i.code.toString(), "message" to i.message, "label" to i.label)
    i.reason?.let { o.addProperty("reason", it.toString()); o.add("params", params(i.params)) }
    return o
}

/** `params` as the wire has it: the figures present, `{}` when none. */
fun params(p: AccountParams): JsonObject {
    val o = JsonObject()
    p.expected?.let { o.addProperty("expected", it) }
    p.actual?.let { o.addProperty("actual", it) }
    p.country?.let { o.addProperty("country", it) }
    return o
}

fun accountCheck(i: JsonObject): JsonObject {
    val kind = try { AccountKind.fromWire(i.str("kind")!!) } catch (e: XborderException) { return err(e) }
    val c = Accounts.checkAccount(kind, i.str("value")!!)
    val o = obj("state" to c.state.toString(), "electronic" to c.electronic, "display" to c.display)
    if (c.state == AccountState.INVALID) {
        o.addProperty("code", c.code.toString())
        o.addProperty("reason", c.reason.toString())
        o.add("params", params(c.params!!))
    }
    return o
}

fun form(i: JsonObject): JsonObject {
    val banks = i.get("banks")?.takeUnless { it.isJsonNull }?.asJsonObject
    // An owner type given and not a string is not a valid one (as the Rust runner reads it).
    val owner = i.get("ownerType")?.takeUnless { it.isJsonNull }?.let { if (it.isJsonPrimitive && it.asJsonPrimitive.isString) it.asString else "" }
    val text = { k: String -> i.get(k)?.takeIf { it.isJsonPrimitive && it.asJsonPrimitive.isString }?.asString ?: "" }
    val fields = try {
        Forms.beneficiaryForm(text("country"), text("paymentType"), owner, document(i.get("rules")),
            banks?.str("country"), document(banks?.get("response")))
    } catch (e: XborderException) {
        return err(e).also { o -> e.field?.let { o.addProperty("field", it) } }
    }
    return obj("fields" to fields.map { f ->
        obj("path" to f.path, "required" to f.required, "source" to f.source.toString(), "input" to f.input.toString(),
            "options" to if (f.input == FormInput.CHOICE) f.options.map { obj("value" to it.value, "label" to it.label) } else null,
            "account" to f.account?.wireName,
            "length" to f.length?.let { obj("min" to it.min, "max" to it.max) },
            "label" to f.label)
    })
}

fun normalize(i: JsonObject): JsonObject =
    obj("draft" to JsonParser.parseString(Forms.normalizeBeneficiary(json(i.get("draft") ?: JsonNull.INSTANCE))))

fun query(i: JsonObject): JsonObject = try {
    obj("ok" to true, "query" to Pagination.listQuery(json(i)))
} catch (e: XborderException) {
    err(e).also { o -> e.field?.let { o.addProperty("field", it) } }
}

fun info(i: JsonObject): JsonObject {
    val req = i.get("request")?.takeUnless { it.isJsonNull }?.asJsonObject
    val request = req?.let {
        val n = { k: String -> it.get(k)?.takeUnless { v -> v.isJsonNull }?.asBigInteger?.longValueExact() }
        PageRequest(n("page"), n("pageSize"))
    }
    return try {
        val p = Pagination.pageInfo(json(i.get("response")), request)
        obj("ok" to true, "total" to p.total, "page" to p.page, "pageSize" to p.pageSize,
            "totalPages" to p.totalPages, "hasNext" to p.hasNext, "hasNextConflict" to p.hasNextConflict, "hasPrevious" to p.hasPrevious,
            "firstItem" to p.firstItem, "lastItem" to p.lastItem, "nextPage" to p.nextPage)
    } catch (e: XborderException) { err(e) }
}

/**
 * FORMAT.md's walk through the public PageWalker: ask for the next query (none: done), feed the
 * next page (none left: not done); each fed query, each record's `id` (null when absent) and
 * each drift code are collected. A page the walker cannot read ends the case with its code.
 */
fun walk(i: JsonObject): JsonObject {
    val request = i.get("request")?.takeUnless { it.isJsonNull }
    val walker = try { PageWalker(request?.let { json(it) } ?: "{}") } catch (e: XborderException) { return err(e) }
    walker.use { w ->
        val pages = i.getAsJsonArray("pages").iterator()
        val queries = mutableListOf<String>()
        val records = JsonArray()
        val drifts = mutableListOf<String>()
        var done = false
        while (true) {
            val query = w.nextQuery()
            if (query == null) { done = true; break }
            if (!pages.hasNext()) break
            val step = try { w.feed(json(pages.next())) } catch (e: XborderException) { return err(e) }
            queries += query
            for (r in step.recordsJson) {
                val record = JsonParser.parseString(r)
                records.add(if (record.isJsonObject) record.asJsonObject.get("id") ?: JsonNull.INSTANCE else JsonNull.INSTANCE)
            }
            step.drifts.forEach { d -> if (d.code !in drifts) drifts += d.code }
        }
        return obj("queries" to queries, "records" to records, "done" to done, "drifts" to drifts)
    }
}

/** Contract v4: an error answer through ApiErrors (a string body is the response text, anything
 *  else the parsed body, as JSON text). */
fun apiError(i: JsonObject): JsonObject {
    val headers = i.get("headers")?.takeUnless { it.isJsonNull }?.asJsonObject?.entrySet()
        ?.associate { (k, v) -> k to v.asString } ?: emptyMap()
    val body = i.get("body")?.takeUnless { it.isJsonNull }
    val method = i.str("method")!!
    val status = i.get("status").asInt
    val e = when {
        body == null -> ApiErrors.readApiError(method, status, headers)
        body.isJsonPrimitive && body.asJsonPrimitive.isString -> ApiErrors.readApiErrorText(method, status, body.asString, headers)
        else -> ApiErrors.readApiError(method, status, headers, json(body))
    }
    val requestId: Any? = when (val r = e.requestId) {
        is RequestId.Text -> r.value
        is RequestId.Integer -> r.value
        null -> null
    }
    return obj("code" to e.code, "message" to e.message, "details" to e.details, "requestId" to requestId,
        "retry" to e.retry.toString(), "afterMs" to e.afterMs)
}

/** Contract v4: the public CatchUp fed the vector's pages as `pagination.walk` feeds a PageWalker:
 *  its events (oldest first), checkpoint and the set of drift codes. */
fun catchUpOp(i: JsonObject): JsonObject {
    fun long(key: String) = i.get(key)?.takeUnless { it.isJsonNull }?.asLong
    val walk = try { CatchUp(i.str("since"), long("overlapMs"), long("pageSize")) } catch (e: XborderException) { return err(e) }
    walk.use { c ->
        val pages = i.getAsJsonArray("pages").iterator()
        val queries = mutableListOf<String>()
        var done = false
        while (true) {
            val query = c.nextQuery()
            if (query == null) { done = true; break }
            if (!pages.hasNext()) break
            try { c.feed(json(pages.next())) } catch (e: XborderException) { return err(e) }
            queries += query
        }
        val events = c.events().map { obj("id" to it.id, "event" to it.event, "entityId" to it.entityId, "entityType" to it.entityType) }
        val drifts = c.drifts().map { it.code }.toSortedSet().toList()
        return obj("queries" to queries, "events" to events, "checkpoint" to c.checkpoint(), "done" to done, "drifts" to drifts)
    }
}

/** The runner's own claims store, in Kotlin: entry texts in a map, compare-and-set under a lock. */
class MapStore : ClaimStore {
    private val map = HashMap<String, String>()
    @Synchronized override fun load(id: String, time: StoreTime): String? = map[id]
    @Synchronized override fun compareAndSet(id: String, expected: String?, new: String?, time: StoreTime): Boolean {
        if (map[id] != expected) return false
        if (new == null) map.remove(id) else map[id] = new
        return true
    }
}

fun claimResults(claims: Claims, steps: List<JsonObject>): List<String> = claims.use {
    steps.map { s ->
        try {
            claims.step(s.str("do")!!, s.str("id")!!, s.str("token")!!, s.get("at").asBigInteger.longValueExact()).toString()
        } catch (e: XborderException) { e.code }
    }
}

// Twice, as FORMAT.md asks: the built-in store, then a store written here.
fun claimsOp(i: JsonObject): JsonObject {
    val lease = i.get("leaseMs").asBigInteger.longValueExact()
    // FORMAT.md: no windowMs, a done id is a duplicate for ever; the API's default is 7 days: the longest window stands for it.
    val window = i.get("windowMs")?.takeUnless { it.isJsonNull }?.asBigInteger?.longValueExact() ?: Long.MAX_VALUE
    val steps = i.getAsJsonArray("steps").map { it.asJsonObject }
    val builtin = claimResults(Claims(lease, window), steps)
    val own = claimResults(Claims.withStore(MapStore(), lease, window), steps)
    if (builtin != own) error("the built-in store gave $builtin, the runner's own store $own")
    return obj("results" to builtin)
}

/**
 * The runner's own store on the suspend path (SuspendClaimStore): entry texts in a map; every
 * call suspends, and is resumed later by [drain] (one thread, in call order).
 */
class SuspendMapStore : SuspendClaimStore {
    private val map = HashMap<String, String>()
    private val pending = ArrayDeque<() -> Unit>()
    override suspend fun load(id: String, time: StoreTime): String? = suspendCoroutine { c -> pending.addLast { c.resume(map[id]) } }
    override suspend fun compareAndSet(id: String, expected: String?, new: String?, time: StoreTime): Boolean =
        suspendCoroutine { c ->
            pending.addLast {
                c.resume(if (map[id] != expected) false else { if (new == null) map.remove(id) else map[id] = new; true })
            }
        }

    /** Runs [block] as a coroutine to its end, resuming each suspended store call in turn. */
    fun <T> drain(block: suspend () -> T): T {
        var result: Result<T>? = null
        block.startCoroutine(Continuation(EmptyCoroutineContext) { result = it })
        while (result == null) (pending.removeFirstOrNull() ?: error("the coroutine waits for nothing")).invoke()
        return result!!.getOrThrow()
    }
}

fun answerJson(a: DeliveryAnswer): JsonObject = obj("status" to a.status, "retryAfter" to a.retryAfterS,
    "outcome" to a.outcome?.toString(), "code" to a.code, "persisted" to a.persisted)

/**
 * The vector's deliveries advanced one act per step (tests/vectors/DECISIONS.md, "Delivery
 * handling"). [open] makes a delivery's handling; [store] answers its store acts (the suspend
 * path; null: the handling's Claims answers them inside `step`). A claim step is written with
 * its outcome or error code (DeliveryHandling.lastStep); the input's `transaction` opens each
 * handling in a transaction, whose `Commit` act is answered with the delivery's `commit`.
 */
suspend fun handleSteps(i: JsonObject, store: SuspendClaimStore?, open: (Receiver, ByteArray, String?, String, Boolean) -> DeliveryHandling): JsonObject {
    val transaction = i.get("transaction")?.takeUnless { it.isJsonNull }?.asBoolean ?: false
    val secret = i.str("secret")!!
    val receiver = Receiver(secret)
    val deliveries = i.getAsJsonObject("deliveries")
    val handlings = LinkedHashMap<String, DeliveryHandling>()
    val acts = mutableListOf<String>()
    val answers = JsonObject()
    try {
        for (step in i.getAsJsonArray("steps").map { it.asJsonObject }) {
            val name = step.str("go")!!
            val at = step.get("at").asBigInteger.longValueExact()
            val d = deliveries.getAsJsonObject(name) ?: error("no delivery $name")
            val h = handlings.getOrPut(name) {
                val body = json(d.get("body")).toByteArray(Charsets.UTF_8)
                val signature = when (val s = d.str("signature")) {
                    null, "valid" -> Webhooks.sign(secret, body)
                    "missing" -> null
                    else -> s
                }
                open(receiver, body, signature, d.str("token") ?: name, transaction)
            }
            suspend fun runStep(): String {
                var next = h.step(at)
                var rounds = 0
                while (next is HandlingAct.Load || next is HandlingAct.CompareAndSet) {
                    check(++rounds <= 64) { "a step's store calls did not end" }
                    val s = store ?: error("a store act over Claims")
                    next = when (next) {
                        is HandlingAct.Load -> h.loaded(s.load(next.id, next.time))
                        is HandlingAct.CompareAndSet -> h.swapped(s.compareAndSet(next.id, next.expected, next.new, next.time))
                        else -> next
                    }
                }
                val last = h.lastStep() ?: error("a step that left no result")
                return "${last.step}:" + (last.code ?: last.outcome.toString())
            }
            val act = when (val a = h.next()) {
                is HandlingAct.Answer -> {
                    answers.add(name, answerJson(a.answer))
                    "answer:${a.answer.status}"
                }
                is HandlingAct.Persist -> {
                    val ok = (d.str("persist") ?: "ok") == "ok"
                    h.persisted(ok)
                    "persist:" + if (ok) "ok" else "fail"
                }
                is HandlingAct.Commit -> {
                    val ok = (d.str("commit") ?: "ok") == "ok"
                    h.committed(ok)
                    "commit:" + if (ok) "ok" else "fail"
                }
                is HandlingAct.Claim, is HandlingAct.Complete, is HandlingAct.Release -> runStep()
                else -> error("an act between steps: $a")
            }
            acts += "$name:$act"
        }
    } finally {
        handlings.values.forEach { it.close() }
        receiver.close()
    }
    return obj("acts" to acts, "answers" to answers)
}

// Twice: the built-in Claims (in memory), and the suspend path over a store written here
// (DeliveryHandling.withStoreSteps, each store call suspending); both must agree.
fun handleOp(i: JsonObject): JsonObject {
    val lease = i.get("leaseMs").asBigInteger.longValueExact()
    val window = i.get("windowMs")?.takeUnless { it.isJsonNull }?.asBigInteger?.longValueExact() ?: Long.MAX_VALUE
    val own = SuspendMapStore()
    val builtin = Claims(lease, window).use { claims ->
        own.drain { handleSteps(i, null) { rx, body, sig, token, tx -> DeliveryHandling(rx, claims, body, sig, token, tx) } }
    }
    val mine = own.drain {
        handleSteps(i, own) { rx, body, sig, token, tx -> DeliveryHandling.withStoreSteps(rx, body, sig, token, lease, window, tx) }
    }
    if (!equal(builtin, mine)) error("the built-in store gave ${json(builtin)}, the runner's own store ${json(mine)}")
    return builtin
}

val ops: Map<String, (JsonObject) -> JsonObject> = mapOf(
    "event.classify" to ::classify,
    "event.check_registration" to ::checkRegistration,
    "event.matches" to { i -> obj("matches" to Events.matches(strings(i.get("subscriptions")), i.str("event")!!)) },
    "signature.sign" to ::signOp,
    "signature.verify" to ::verifyOp,
    "envelope.decode" to ::decode,
    "webhook.receive" to ::receive,
    "beneficiary.validate" to ::validate,
    "pagination.query" to ::query,
    "pagination.info" to ::info,
    "pagination.walk" to ::walk,
    "delivery.claims" to ::claimsOp,
    "delivery.handle" to ::handleOp,
    "account.check" to ::accountCheck,
    "beneficiary.form" to ::form,
    "beneficiary.normalize" to ::normalize,
    "api.error" to ::apiError,
    "events.catch_up" to ::catchUpOp,
)

/** Ops FORMAT.md defines that this runner does not implement yet: counted as skipped. */
val notYet = setOf<String>()

/**
 * How the values of a key compare: `issues` paired one to one with elements they match (v4),
 * `fields` and `events` in order element by element (v4), `rejected` as a multiset, `drifts`
 * as a set.
 */
enum class Compare { EXACT, MULTISET, SET, PAIRED, IN_ORDER }

fun compareOf(key: String): Compare = when (key) {
    "issues" -> Compare.PAIRED
    "fields", "events" -> Compare.IN_ORDER
    "rejected" -> Compare.MULTISET
    "drifts" -> Compare.SET
    else -> Compare.EXACT
}

/** (v4) An expected key's value against the actual one: an expected null matches null or absent. */
fun keyEqual(want: JsonElement, got: JsonElement?, how: Compare): Boolean =
    if (got == null) want.isJsonNull else equal(want, got, how)

/** (v4) An expected element matches an actual one when every key it has equals the actual's
 *  (`{path, code}` matches an issue that also carries `reason`, `message`, `label`). */
fun elementMatches(want: JsonElement, got: JsonElement): Boolean =
    if (want.isJsonObject && got.isJsonObject) {
        val g = got.asJsonObject
        want.asJsonObject.entrySet().all { (k, v) -> keyEqual(v, g.get(k), compareOf(k)) }
    } else equal(want, got)

/** (v4) The expected elements paired one to one with actual elements they match, none left
 *  over: a search over every pairing (the lists are short). */
fun paired(x: List<JsonElement>, y: List<JsonElement>): Boolean {
    val used = BooleanArray(y.size)
    fun pair(k: Int): Boolean {
        if (k == x.size) return true
        for (j in y.indices) {
            if (!used[j] && elementMatches(x[k], y[j])) {
                used[j] = true
                if (pair(k + 1)) return true
                used[j] = false
            }
        }
        return false
    }
    return x.size == y.size && pair(0)
}

// Deep equality: numbers by value, booleans apart from numbers; arrays per `how`; (v4) an
// object's expected null matches a key null or absent, and its keys beyond the expected ones
// must be null.
fun equal(a: JsonElement, b: JsonElement, how: Compare = Compare.EXACT): Boolean = when {
    a.isJsonNull || b.isJsonNull -> a.isJsonNull && b.isJsonNull
    a.isJsonPrimitive && b.isJsonPrimitive -> {
        val p = a.asJsonPrimitive; val q = b.asJsonPrimitive
        when {
            p.isNumber && q.isNumber -> BigDecimal(p.asString).compareTo(BigDecimal(q.asString)) == 0
            p.isBoolean && q.isBoolean -> p.asBoolean == q.asBoolean
            p.isString && q.isString -> p.asString == q.asString
            else -> false
        }
    }
    a.isJsonArray && b.isJsonArray -> {
        val x = a.asJsonArray.toList(); val y = b.asJsonArray.toList()
        when (how) {
            // Each distinct value once, order and count ignored.
            Compare.SET -> x.all { item -> y.any { equal(item, it) } } && y.all { item -> x.any { equal(item, it) } }
            Compare.EXACT -> x.size == y.size && x.indices.all { equal(x[it], y[it]) }
            Compare.MULTISET -> x.size == y.size && run {
                val left = y.toMutableList()
                x.all { item -> val k = left.indexOfFirst { equal(item, it) }; if (k < 0) false else { left.removeAt(k); true } }
            }
            Compare.PAIRED -> paired(x, y)
            Compare.IN_ORDER -> x.size == y.size && x.indices.all { elementMatches(x[it], y[it]) }
        }
    }
    a.isJsonObject && b.isJsonObject -> {
        val x = a.asJsonObject; val y = b.asJsonObject
        x.entrySet().all { (k, v) -> keyEqual(v, y.get(k), compareOf(k)) } &&
            y.entrySet().all { (k, v) -> x.has(k) || v.isJsonNull }
    }
    else -> false
}

fun mismatch(expect: JsonObject, actual: JsonObject): String? {
    for ((key, want) in expect.entrySet()) {
        val got = actual.get(key)
        if (got == null) {
            if (want.isJsonNull) continue
            return "`$key` missing (want ${json(want)}; got ${json(actual)})"
        }
        if (!equal(want, got, compareOf(key))) return "`$key`: want ${json(want)}, got ${json(got)}"
    }
    return null
}

/** What one run of the vectors counted. */
class VectorRun(val passed: Int, val failed: Int, val skipped: Int)

/** Runs every vector in `dirs` and `singles`, prints the FAIL/SKIP lines and the closing line. */
fun runVectors(dirs: List<String>, singles: List<String> = vectorFiles()): VectorRun {
    var passed = 0
    var failed = 0
    val skipped = sortedMapOf<String, Int>()
    val inDirs = dirs.map { dir ->
        File(dir).listFiles { f -> f.isFile && f.name.endsWith(".json") }?.sortedBy { it.name } ?: emptyList()
    }
    // Each file of XBORDER_VECTOR_FILES beside the folders' files (a file named twice runs once).
    val given = (inDirs.flatten() + singles.map(::File)).distinctBy { it.canonicalPath }
    // The project's vectors of ops not every runtime has yet, read whatever folders are given.
    val files = given + projectOnlyFiles().filter { f -> given.none { it.name == f.name } }
    for (file in files) {
        val doc = JsonParser.parseString(file.readText(Charsets.UTF_8)).asJsonObject
        for (c in doc.getAsJsonArray("cases").map { it.asJsonObject }) {
            val opName = c.str("op")!!
            if (opName in notYet) { skipped[opName] = (skipped[opName] ?: 0) + 1; continue }
            val op = ops[opName]
            val why = if (op == null) "op `$opName` is not defined by FORMAT.md" else try {
                mismatch(c.getAsJsonObject("expect"), op(c.getAsJsonObject("input")))
            } catch (t: Throwable) {
                "threw ${t::class.qualifiedName}: ${t.message}"
            }
            if (why == null) passed++ else {
                failed++
                println("FAIL ${file.path} :: ${c.str("name")}: $why")
            }
        }
    }
    skipped.forEach { (op, n) -> println("SKIP $op ($n)") }
    val nSkipped = skipped.values.sum()
    println("conformance: $passed passed, $failed failed" + if (nSkipped > 0) ", $nSkipped skipped" else "")
    return VectorRun(passed, failed, nSkipped)
}

/** The project's vectors of ops not every runtime has yet (issue 33's `delivery.handle`):
 *  tests/vectors/handling/ under XBORDER_ROOT (else the working folder), as the Rust runner reads
 *  it (tests/vectors/DECISIONS.md); a file of the same name among the given ones runs once. */
fun projectOnlyFiles(): List<File> {
    val dir = File(System.getenv("XBORDER_ROOT") ?: ".", "tests/vectors/handling")
    return dir.listFiles { f -> f.isFile && f.name.endsWith(".json") }?.sortedBy { it.name } ?: emptyList()
}

/** The vector folders of XBORDER_VECTOR_DIRS (tests/runners/CONTRACT.md). */
fun vectorDirs(): List<String> = (System.getenv("XBORDER_VECTOR_DIRS") ?: "").split(":").filter { it.isNotEmpty() }

/** The single vector files of XBORDER_VECTOR_FILES (CONTRACT.md: contract v4's accounts.json
 *  and forms.json). */
fun vectorFiles(): List<String> = (System.getenv("XBORDER_VECTOR_FILES") ?: "").split(":").filter { it.isNotEmpty() }

// kotlinc path (tests/runners/kotlin/run.sh): `java RunnerKt`. Maven path: the JUnit test
// bindings-uniffi/jvm/src/test/kotlin/ConformanceTest.kt calls runVectors.
fun main() {
    exitProcess(if (runVectors(vectorDirs()).failed > 0) 1 else 0)
}
