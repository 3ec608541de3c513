// The Kotlin binding's own API tests (run by bindings-uniffi/test.sh): one secret is the common
// case and is never split; a rotation takes a named list; pagination errors carry their field;
// an extended catalog reaches its receivers; the walker passes records once; claims agree in the
// built-in store, a Kotlin store and a ClaimTask driven by suspend functions; beneficiary issues
// carry what to fix and the rules document's label, documents are taken as the response text
// and an unreadable one is reported (an issue, or XborderException from requiredFields).
// Accounts.checkAccount says each state (nothing red while incomplete) with core's reason and
// figures; Forms.beneficiaryForm and BeneficiaryValidator.form give the fields in order and
// refuse with a coded exception; normalizeBeneficiary changes account details only (issue 31).
// Issue 12: in Python a string secret was read as one secret per character. test.sh compiles it
// with Readme.kt, every kotlin block of kotlin.md wrapped as `fun readmeSnippetN()` and listed by
// `readmeSnippets`, so the doc runs too.
// Coroutines: kotlinx-coroutines is not on the test classpath, so the suspend store is driven
// with the standard library alone (startCoroutine/suspendCoroutine), resumed on pool threads.
import dev.xborder.*
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CyclicBarrier
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import javax.crypto.Mac
import javax.crypto.spec.SecretKeySpec
import kotlin.coroutines.Continuation
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.coroutines.resume
import kotlin.coroutines.startCoroutine
import kotlin.coroutines.suspendCoroutine

const val SECRET = "whsec_test"
val BODY = """{"id":"evt_1","event":"order:created","entity":{"id":"ord_1","type":"order","data":{}}}""".toByteArray()

var passed = 0
var failed = 0

fun check(name: String, ok: Boolean, why: () -> String = { "" }) {
    if (ok) passed++ else { failed++; println("FAIL $name: ${why()}") }
}

fun hmacHex(key: ByteArray, body: ByteArray): String {
    val mac = Mac.getInstance("HmacSHA256")
    mac.init(SecretKeySpec(key, "HmacSHA256"))
    return mac.doFinal(body).joinToString("") { "%02x".format(it) }
}

/** The code of the XborderException `block` throws, or null when it returns. */
fun codeOf(block: () -> Unit): String? = try { block(); null } catch (e: XborderException) { e.code }

fun main() {
    // Every proper prefix of the secret, each single character: refused by verify and receive.
    val keys = (1 until SECRET.length).map { SECRET.substring(0, it) } + SECRET.map { it.toString() }.toSet()
    for (k in keys) {
        val forged = hmacHex(k.toByteArray(Charsets.UTF_8), BODY)
        check("verify refuses key '$k'", codeOf { Webhooks.verify(SECRET, BODY, forged) } == "SIGNATURE_MISMATCH")
        val d = Receiver(SECRET).receive(BODY, forged)
        check("receive refuses key '$k'", d.action == Action.REJECT && d.errorCode == "SIGNATURE_MISMATCH") { "$d" }
    }
    // The whole secret as UTF-8 bytes.
    val good = hmacHex(SECRET.toByteArray(Charsets.UTF_8), BODY)
    check("sign is HMAC of the UTF-8 key", Webhooks.sign(SECRET, BODY) == good)
    check("verify accepts the whole secret", codeOf { Webhooks.verify(SECRET, BODY, good) } == null)
    check("receive accepts the whole secret", Receiver(SECRET).receive(BODY, good).action == Action.PROCESS)
    // Non-ASCII: UTF-8, not Latin-1.
    val secret = "clé_é"
    val utf8 = hmacHex(secret.toByteArray(Charsets.UTF_8), BODY)
    val latin1 = hmacHex(secret.toByteArray(Charsets.ISO_8859_1), BODY)
    check("UTF-8 and Latin-1 keys differ", utf8 != latin1)
    check("non-ASCII secret signs as UTF-8", Webhooks.sign(secret, BODY) == utf8)
    check("non-ASCII secret verifies as UTF-8", codeOf { Webhooks.verify(secret, BODY, utf8) } == null)
    check("non-ASCII secret refuses Latin-1", codeOf { Webhooks.verify(secret, BODY, latin1) } == "SIGNATURE_MISMATCH")
    // Whitespace is part of the secret; empty is EMPTY_SECRET.
    for (padded in listOf(" $SECRET", "$SECRET\n")) {
        check("a padded secret is MALFORMED_SECRET", codeOf { Webhooks.verify(padded, BODY, good) } == "MALFORMED_SECRET")
    }
    check("empty secret", codeOf { Receiver("") } == "EMPTY_SECRET")
    check("empty list", codeOf { Receiver.withSecrets(emptyList()) } == "EMPTY_SECRET")
    check("empty verify list", codeOf { Webhooks.verifyWithSecrets(emptyList(), BODY, good) } == "EMPTY_SECRET")
    // Rotation through the named list.
    val old = hmacHex("whsec_old".toByteArray(), BODY)
    check("rotation verify", codeOf { Webhooks.verifyWithSecrets(listOf("whsec_old", SECRET), BODY, old) } == null)
    check("rotation receive", Receiver.withSecrets(listOf("whsec_old", SECRET), 10L).receive(BODY, old).action == Action.PROCESS)
    check("rotation refuses others", codeOf { Webhooks.verifyWithSecrets(listOf("whsec_old", SECRET), BODY, hmacHex("w".toByteArray(), BODY)) } == "SIGNATURE_MISMATCH")
    // Pagination: filters, case-insensitive sort order, errors with their field.
    check("filters", Pagination.listQuery("""{"sortOrder":"desc","filters":{"status":"success"}}""") ==
        "page=0&pageSize=10&sortBy=createdAt&sortOrder=DESC&status=success")
    try {
        Pagination.listQuery("""{"status":"success"}""")
        check("unknown parameter throws", false)
    } catch (e: XborderException) {
        check("unknown parameter code and field", e.code == "UNKNOWN_PARAMETER" && e.field == "status") { "${e.code} ${e.field}" }
    }
    shapeTests()
    catalogTests()
    walkerTests()
    beneficiaryTests()
    claimsTests()
    handlingTests()
    speedTests()
    accountTests()
    formTests()
    // Every kotlin block of kotlin.md (the webhook one, "A beneficiary form", "Messages in your
    // language"): none may drop out unnoticed.
    check("kotlin.md: its three kotlin blocks or more", readmeSnippets.size >= 3) { "${readmeSnippets.size}" }
    for ((n, snippet) in readmeSnippets.withIndex()) {
        val readme = try { snippet(); null } catch (e: Throwable) { e.toString() }
        check("the kotlin.md snippet ${n + 1} runs", readme == null) { readme ?: "" }
    }
    println("kotlin api: $passed passed, $failed failed")
    if (failed > 0) kotlin.system.exitProcess(1)
}

/** The message of the IllegalArgumentException `block` throws, or null when it throws none. */
fun refusal(block: () -> Any?): String? = try { block(); null } catch (e: IllegalArgumentException) { e.message ?: "" }

/** The hand-written API's own shape: the exception, numbers as Long/Int, core's defaults. */
fun shapeTests() {
    // One unchecked exception with code, field and detail; its message says the code once.
    val bad = try { Webhooks.verify(SECRET, BODY, "0".repeat(64)); null } catch (e: XborderException) { e }
    check("exception: unchecked, SIGNATURE_MISMATCH", bad is RuntimeException && bad.code == "SIGNATURE_MISMATCH" && bad.field == null) { "$bad" }
    val message = bad?.message ?: ""
    check("exception: the message says the code once, then the detail",
        message.startsWith("SIGNATURE_MISMATCH: ") && message.split("SIGNATURE_MISMATCH").size == 2 && message.endsWith(bad!!.detail)) { message }
    val page = try { Pagination.listQuery("""{"status":"x"}"""); null } catch (e: XborderException) { e }
    check("exception: its field", page?.field == "status" && page.message!!.startsWith("UNKNOWN_PARAMETER (status): ") &&
        page.message!!.split("UNKNOWN_PARAMETER").size == 2) { "${page?.message}" }
    val step = try { Claims().step("claim", "", "t", 0); null } catch (e: XborderException) { e }
    check("exception: the code once, even where core's detail starts with it",
        step?.field == "id" && step.message!!.startsWith("INVALID_STEP (id): ") && step.message!!.split("INVALID_STEP").size == 2) { "${step?.message}" }
    check("decision: core's reply", Receiver(SECRET).receive(BODY, Webhooks.sign(SECRET, BODY)).reply == ClaimReply(200, null) &&
        Receiver(SECRET).receive(BODY, "0".repeat(64)).reply == ClaimReply(400, null))
    val reg = try { Events.createWebhookBody(listOf("order:created", "nope:nope"), "https://a.test/h"); null } catch (e: XborderException) { e }
    check("exception: the names refused", reg?.code == "VALIDATION_FAILED" && reg.rejected.map { it.event } == listOf("nope:nope")) { "$reg" }
    val noDraft = try { Beneficiaries.validate("{"); null } catch (e: XborderException) { e }
    check("exception: MALFORMED_JSON", noDraft?.code == "MALFORMED_JSON" && noDraft.detail.isNotBlank())

    // Every number parameter: a negative value is an IllegalArgumentException naming it.
    val wrong: List<Pair<String, () -> Any?>> = listOf(
        "window" to { Receiver(SECRET, -1L) },
        "window" to { Receiver.withSecrets(listOf(SECRET), -1L) },
        "window" to { Receiver(listOf(SECRET), -5L, null, Catalog()) },
        "maxBodyBytes" to { DecodeLimits(-1, 10) },
        "maxDepth" to { DecodeLimits(10, -1) },
        "existingWebhooks" to { Events.checkRegistration(listOf("order:created"), -1) },
        "existingWebhooks" to { Events.createWebhookBody(listOf("order:created"), "https://a.test/h", -1) },
        "existingWebhooks" to { Catalog().checkRegistration(listOf("order:created"), -1) },
        "existingWebhooks" to { Catalog().createWebhookBody(listOf("order:created"), "https://a.test/h", -1) },
        "existingWebhooks" to { Events.checkRegistration(listOf("order:created"), 4_294_967_296L) },
        "page" to { PageRequest(-1, null) },
        "pageSize" to { PageRequest(null, -1) },
        "leaseMs" to { Claims(-1L) },
        "leaseMs" to { Claims(MapStore(), -1L) },
        "leaseMs" to { ClaimTask("claim", "e", "t", 0, -1L) },
        "windowMs" to { Claims(null, -1L) },
        "windowMs" to { Claims.withStore(MapStore(), null, -1L) },
        "windowMs" to { ClaimTask("claim", "e", "t", 0, null, -1L) },
        "capacity" to { Claims(null, null, -1L) },
        "atMs" to { Claims().step("claim", "e", "t", -1) },
        "atMs" to { ClaimTask("claim", "e", "t", -1) },
        "status" to { ClaimReply(99, null) },
        "status" to { ClaimReply(600, 1L) },
        "retryAfterS" to { ClaimReply(503, -1L) },
    )
    for ((name, call) in wrong) {
        val why = refusal(call)
        check("a wrong $name is refused by name", why != null && why.startsWith("$name must be") && why.contains("got")) { "$why" }
    }
    check("existingWebhooks up to 2^32 - 1", Events.checkRegistration(listOf("order:created"), 4_294_967_295L).code == "WEBHOOK_LIMIT_REACHED")
    check("a zero is a number like another", refusal { Claims(0L, 0L, 0L); Receiver(SECRET, 0L); PageRequest(0, 0) } == null)

    // An argument left out (null) is core's default, passed through.
    check("default lease: Retry-After 30", Claims().reply("claim", ClaimOutcome.IN_PROGRESS) == ClaimReply(503, 30L))
    check("default lease of a task: a claim lives two leases",
        ClaimTask("claim", "e", "t", 0).use { t -> t.start(); t.loaded(null) } == ClaimNeed.CompareAndSet("e", null, "h:0:t", StoreTime(0L, 60_000L, 60_000L)))
    val ttls = mutableListOf<Long?>()
    val times = mutableListOf<StoreTime>()
    val recording = object : ClaimStore {
        val map = HashMap<String, String>()
        override fun load(id: String, time: StoreTime): String? = map[id]
        override fun compareAndSet(id: String, expected: String?, new: String?, time: StoreTime): Boolean {
            if (map[id] != expected) return false
            if (new == null) map.remove(id) else map[id] = new
            ttls += time.ttlMs
            times += time
            return true
        }
    }
    val week = 7L * 24 * 3600 * 1000
    val claims = Claims(recording, 1_000L)
    claims.step("claim", "evt_w", "t", 0)
    claims.step("complete", "evt_w", "t", 1)
    check("no window: a done id lives 7 days (core's default), a claim two leases", ttls == listOf<Long?>(2_000L, week)) { "$ttls" }
    check("the longest window: a done id's TTL is core's clamp, 2^48 - 1, its expiry the step's time plus it", Claims(recording, 1_000L, Long.MAX_VALUE).let { c ->
        c.step("claim", "evt_m", "t", 0); c.step("complete", "evt_m", "t", 1)
        ttls.last() == (1L shl 48) - 1 && times.last() == StoreTime(1L, (1L shl 48) - 1, 1L shl 48) }) { "$ttls $times" }
    check("default decode limits are core's", DecodeLimits.defaults().maxBodyBytes > 0 && DecodeLimits.defaults().maxDepth > 2)
    check("decodeEnvelope within limits", codeOf { Webhooks.decodeEnvelope(BODY, DecodeLimits(8, 64)) } == "BODY_TOO_LARGE")
    check("decodeEnvelope", Webhooks.decodeEnvelope(BODY).let { it.id == "evt_1" && it.kind == EventKind.LIVE && it.kind.toString() == "live" })
    // The enums say FORMAT.md's names, as core writes them.
    check("enum texts", Action.PROCESS.toString() == "process" && ClaimOutcome.IN_PROGRESS.toString() == "in_progress" &&
        IssueCode.INVALID_IBAN.toString() == "INVALID_IBAN" && FieldSource.RULES.toString() == "rules" && EventKind.WILDCARD.toString() == "wildcard") {
        listOf(Action.PROCESS, ClaimOutcome.IN_PROGRESS, IssueCode.INVALID_IBAN, FieldSource.RULES, EventKind.WILDCARD).toString() }
    check("acknowledges: core's rule", ClaimOutcome.values().filter { it.acknowledges() } == listOf(ClaimOutcome.DUPLICATE, ClaimOutcome.COMPLETED))
    check("matches", Events.matches(listOf("order:*"), "order:created") && !Events.matches(listOf("order:*"), "fiat_deposit:created"))
}

fun signed(event: String, id: String = "evt_9"): Pair<ByteArray, String> {
    val body = """{"id":"$id","event":"$event","entity":{"id":"ord_1","type":"${event.substringBefore(':')}"}}""".toByteArray()
    return body to hmacHex(SECRET.toByteArray(), body)
}

fun catalogTests() {
    val c = Catalog()
    check("catalog: unknown before", c.classify("order:rejected").kind == EventKind.UNKNOWN)
    c.addLive("order:rejected")
    val got = c.classify("order:rejected")
    check("catalog: live after add", got == EventClassification(EventKind.LIVE, "order", "rejected")) { "$got" }
    check("catalog: isLive", c.isLive("order:rejected"))
    val reg = c.checkRegistration(listOf("order:rejected", "order:created"))
    check("catalog: registration accepts it", reg.ok && reg.events == listOf("order:rejected", "order:created")) { "$reg" }
    check("catalog: webhook body", c.createWebhookBody(listOf("order:rejected"), "https://a.test/h").contains("\"order:rejected\""))
    check("catalog: free functions keep the built-in catalog",
        Events.classify("order:rejected").kind == EventKind.UNKNOWN && !Events.checkRegistration(listOf("order:rejected")).ok)
    val (body, sig) = signed("order:rejected")
    val withCatalog = Receiver(SECRET, catalog = c).receive(body, sig)
    check("catalog: receiver with it processes", withCatalog.action == Action.PROCESS && withCatalog.envelope?.event == "order:rejected") { "$withCatalog" }
    check("catalog: rotation receiver with it processes",
        Receiver.withSecrets(listOf("whsec_old", SECRET), catalog = c).receive(body, sig).action == Action.PROCESS)
    check("catalog: default receiver ignores", Receiver(SECRET).receive(body, sig).action == Action.IGNORE)
    val copied = Receiver(SECRET, catalog = c)
    c.addLive("fiat_deposit:rejected")
    val (later, laterSig) = signed("fiat_deposit:rejected")
    check("catalog: the receiver keeps its copy", copied.receive(later, laterSig).action == Action.IGNORE)
    c.addWildcard("fiat_deposit:*")
    check("catalog: wildcard", c.classify("fiat_deposit:*").kind == EventKind.WILDCARD && c.checkRegistration(listOf("fiat_deposit:*")).ok)
    check("catalog: matches", c.matches(listOf("fiat_deposit:*"), "fiat_deposit:rejected"))
    for ((name, add) in listOf<Pair<String, (String) -> Unit>>("Bad Name" to c::addLive, "order:*" to c::addLive,
            "" to c::addLive, "order:rejected" to c::addWildcard)) {
        try {
            add(name)
            check("catalog: '$name' refused", false)
        } catch (e: XborderException) {
            check("catalog: '$name' is INVALID_EVENT_NAME", e.code == "INVALID_EVENT_NAME") { e.toString() }
        }
    }
}

fun walkerTests() {
    // A server whose list gains a record ("d", newest first) while the walker is on page 1.
    val records = mutableListOf("c", "b", "a", "z")
    val queries = mutableListOf<String>()
    fun serve(query: String): String {
        val q = query.split("&").associate { it.substringBefore('=') to it.substringAfter('=') }
        val page = q.getValue("page").toInt()
        val size = q.getValue("pageSize").toInt()
        if (queries.size == 2) records.add(0, "d")
        val data = records.drop(page * size).take(size).joinToString(",") { """{"id":"$it"}""" }
        return """{"data":[$data],"total":${records.size},"page":$page,"pageSize":$size}"""
    }
    val w = PageWalker("""{"pageSize":2,"filters":{"status":"success"}}""")
    val seen = mutableListOf<String>()
    val drifts = mutableListOf<Drift>()
    while (true) {
        val query = w.nextQuery() ?: break
        queries.add(query)
        val step = w.feed(serve(query))
        seen += step.recordsJson
        drifts += step.drifts
    }
    check("walker: done", w.isDone() && w.nextQuery() == null)
    check("walker: three pages", queries.map { it.substringBefore('&') } == listOf("page=0", "page=1", "page=2")) { "$queries" }
    check("walker: filters kept", queries.all { it.endsWith("&status=success") })
    check("walker: each record once", seen.sorted() == listOf("a", "b", "c", "z").map { """{"id":"$it"}""" }) { "$seen" }
    check("walker: repeated record", drifts.any { it.code == "REPEATED_RECORDS" && it.count == 1L }) { "$drifts" }
    check("walker: total changed", drifts.any { it.code == "TOTAL_CHANGED" && it.previousTotal == 4L && it.total == 5L }) { "$drifts" }
    try {
        PageWalker("""{"status":"x"}""")
        check("walker: unknown parameter throws", false)
    } catch (e: XborderException) {
        check("walker: unknown parameter", e.code == "UNKNOWN_PARAMETER" && e.field == "status")
    }
}

// The two documents as the server sends them (GET /v1/validation-rules/beneficiaries and
// GET /v1/beneficiaries/banks?countryCode=CO), as response text.
val RULES_CO = """{"data": {"country": "CO", "ownerType": "individual", "rules": {
    "requiredFields": [{"field": "firstName", "description": "First name"}, {"field": "lastName"}],
    "paymentTypes": [{"type": "bank_account", "requiredFields": [{"field": "accountNumber", "description": "Account number"}]}]}},
    "requestId": "req_1"}"""
val BANKS_CO = """{"data": [{"id": "bank_co_001", "name": "Banco Uno"}], "requestId": "req_2"}"""

fun draft(country: String, paymentInfo: String, names: String = ""): String =
    """{"ownerType":"individual","country":"$country","paymentType":"bank_account"$names,"paymentInfo":$paymentInfo}"""

fun shown(v: BeneficiaryValidation): List<String> = v.issues.map { "${it.path} ${it.code}" }

fun beneficiaryTests() {
    // Issues say what to fix, and carry the label the rules document gives the field.
    val missing = Beneficiaries.validate(draft("CO", """{"bankId":"bank_co_001"}"""), RULES_CO, "CO", BANKS_CO)
    check("beneficiary: every issue", shown(missing).toSet() ==
        setOf("firstName REQUIRED", "lastName REQUIRED", "paymentInfo.accountNumber REQUIRED")) { "$missing" }
    val byPath = missing.issues.associateBy { it.path }
    check("beneficiary: a described field's label", byPath["firstName"]?.label == "First name" &&
        byPath["paymentInfo.accountNumber"]?.label == "Account number") { "$missing" }
    check("beneficiary: a field without a description has no label", byPath["lastName"]?.let { it.label == null } == true) { "$missing" }
    check("beneficiary: every issue has a message", missing.issues.all { it.message.isNotBlank() && it.message != it.code.toString() }) { "$missing" }
    val fixed = Beneficiaries.validate(draft("CO", "{}"))
    check("beneficiary: a fixed rule's issue has no label", fixed.issues.any { it.path == "paymentInfo.bankId" && it.code == IssueCode.REQUIRED && it.label == null }) { "$fixed" }

    // Account details, checked as banks check them: the good value passes, the bad one is its code.
    val details = listOf(
        listOf("DE", "accountNumber", "DE89 3704 0044 0532 0130 00", "DE89370400440532013001", "INVALID_IBAN"),
        listOf("CO", "bic", "DEUTDEFF500", "DEUTZZFF", "INVALID_BIC"),
        listOf("MX", "accountNumber", "002010077777777771", "002010077777777772", "INVALID_CLABE"),
        listOf("AR", "accountNumber", "2850590940090418135201", "2850591940090418135201", "INVALID_CBU"),
        listOf("AR", "bankDocumentNumber", "20-12345678-6", "21123456786", "INVALID_CUIT"),
        listOf("IN", "ifscCode", "HDFC0001234", "HDFC1001234", "INVALID_IFSC"),
        listOf("GB", "sortCode", "12-34-56", "12345", "INVALID_SORT_CODE"),
        listOf("AU", "bsbNumber", "062-000", "06200A", "INVALID_BSB"),
        listOf("CA", "branchCode", "00312345", "000312345", "INVALID_BRANCH_CODE"),
    )
    for ((country, field, good, bad, code) in details) {
        val ok = Beneficiaries.validate(draft(country, """{"bankId":"bank_001","$field":"$good"}"""))
        check("beneficiary: $code passes $good", ok.valid && ok.issues.isEmpty()) { "$ok" }
        val v = Beneficiaries.validate(draft(country, """{"bankId":"bank_001","$field":"$bad"}"""))
        val issue = v.issues.singleOrNull()
        check("beneficiary: $code for $bad", !v.valid && issue != null && issue.path == "paymentInfo.$field" &&
            issue.code.toString() == code && issue.message.isNotBlank()) { "$v" }
    }
    val iban = Beneficiaries.validate(draft("DE", """{"bankId":"bank_001","accountNumber":"DE89370400440532013001"}""")).issues.single()
    check("beneficiary: an IBAN's message names the check digits", iban.code == IssueCode.INVALID_IBAN && iban.message.contains("check digits")) { iban.message }
    val notString = Beneficiaries.validate(draft("DE", """{"bankId":"bank_001","accountNumber":89370400}""")).issues
    check("beneficiary: a number where a string goes", notString.map { "${it.path} ${it.code}" } == listOf("paymentInfo.accountNumber INVALID_VALUE")) { "$notString" }
    val codes = IssueCode.values().map { it.toString() }
    check("beneficiary: the new issue codes", codes.containsAll(listOf("RULES_UNREADABLE", "BANKS_UNREADABLE", "INVALID_IBAN",
        "INVALID_CLABE", "INVALID_CBU", "INVALID_CUIT", "INVALID_BIC", "INVALID_IFSC", "INVALID_SORT_CODE", "INVALID_BSB",
        "INVALID_BRANCH_CODE"))) { "$codes" }

    // Documents are the response text; one that cannot be read is an issue at "", never thrown,
    // never read as "no rules", and none of its rules applies.
    val named = ""","firstName":"Ana","lastName":"Ruiz""""
    val good = draft("CO", """{"bankId":"bank_co_001","accountNumber":"123456"}""", named)
    check("beneficiary: both documents as text", Beneficiaries.validate(good, RULES_CO, "CO", BANKS_CO).valid)
    // The response text encoded once more as a JSON string: a text whose JSON is a string.
    val encodedTwice = "\"" + RULES_CO.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\""
    // Each with the reason core gives (its message says why, then the shape to pass).
    for ((rules, why) in listOf("""{"data": {""" to "not JSON", "{}" to "shape", """{"error":{"CODE":"INTERNAL"}}""" to "error response",
            "null" to "not a JSON object", encodedTwice to "encoded twice", "[]" to "not a JSON object")) {
        val v = Beneficiaries.validate(draft("CO", """{"bankId":"bank_co_001"}"""), rules, "CO", BANKS_CO)
        check("beneficiary: rules ${rules.take(24)} are RULES_UNREADABLE ($why) and not applied", shown(v) == listOf(" RULES_UNREADABLE") &&
            v.issues[0].message.startsWith("the rules document") && v.issues[0].message.contains(why)) { "$v" }
    }
    for ((what, banks) in listOf("the bare array" to """[{"id":"bank_co_001"}]""", "not JSON" to "<html>", "data not an array" to """{"data":{}}""")) {
        val v = Beneficiaries.validate(good, null, "CO", banks)
        check("beneficiary: banks $what is BANKS_UNREADABLE", shown(v) == listOf(" BANKS_UNREADABLE") && v.issues[0].message.contains("bank list")) { "$v" }
    }
    check("beneficiary: an unreadable bank list for a US draft too",
        shown(Beneficiaries.validate(draft("US", """{"routingNumber":"021000021"}"""), null, "US", "{}")) == listOf(" BANKS_UNREADABLE"))
    check("beneficiary: null is not given", Beneficiaries.validate(good, null, null, null).valid)
    check("beneficiary: a draft that is not JSON throws MALFORMED_JSON", codeOf { Beneficiaries.validate("{", RULES_CO) } == "MALFORMED_JSON")

    // BeneficiaryValidator: the documents read once, the same answers as validateBeneficiary.
    val drafts = listOf(good, draft("CO", """{"bankId":"bank_co_404"}"""), draft("CO", "{}"), "[]", """{"country":"co"}""")
    BeneficiaryValidator(RULES_CO, "CO", BANKS_CO).use { validator ->
        for (d in drafts) {
            val got = validator.validate(d)
            check("validator: as validateBeneficiary for $d", got == Beneficiaries.validate(d, RULES_CO, "CO", BANKS_CO)) { "$got" }
        }
        check("validator: unknown bank", shown(validator.validate(drafts[1])).contains("paymentInfo.bankId UNKNOWN_BANK"))
        check("validator: a draft that is not JSON", codeOf { validator.validate("{") } == "MALFORMED_JSON")
        // Shared between threads: each answer is the one a lone call gives.
        val pool = Executors.newFixedThreadPool(4)
        try {
            val want = drafts.map { validator.validate(it) }
            val got = (0 until 40).map { n -> CompletableFuture.supplyAsync({ validator.validate(drafts[n % drafts.size]) }, pool) }
                .map { it.get(10, TimeUnit.SECONDS) }
            check("validator: shared between threads", got.withIndex().all { (n, v) -> v == want[n % drafts.size] })
        } finally {
            pool.shutdown()
        }
    }
    BeneficiaryValidator(banksCountry = "CO", banksJson = "[]").use { validator ->
        check("validator: an unreadable bank list on every validation",
            (1..2).all { shown(validator.validate(good)) == listOf(" BANKS_UNREADABLE") })
    }
    check("validator: no documents", BeneficiaryValidator().validate(good).valid)

    // requiredFields: the rules document's fields, or Document(RULES_UNREADABLE), never an empty list.
    val fields = Beneficiaries.requiredFields(RULES_CO, "bank_account", "CO")
    check("requiredFields: the rules' fields with their description",
        fields.any { it.path == "firstName" && it.description == "First name" && it.source == FieldSource.RULES } &&
            fields.any { it.path == "paymentInfo.accountNumber" && it.source == FieldSource.RULES }) { "$fields" }
    for (rules in listOf("""{"data": {""", "[]", encodedTwice)) {
        try {
            Beneficiaries.requiredFields(rules, "bank_account", "CO")
            check("requiredFields: unreadable rules throw ($rules)", false)
        } catch (e: XborderException) {
            check("requiredFields: RULES_UNREADABLE ($rules)", e.code == "RULES_UNREADABLE" &&
                e.field == null && e.detail.contains("rules document")) { e.toString() }
        }
    }
}

/** The XborderException `block` throws, or null when it returns. */
fun thrown(block: () -> Unit): XborderException? = try { block(); null } catch (e: XborderException) { e }

fun accountTests() {
    // Each state: empty, incomplete (nothing wrong yet), complete, invalid with why.
    val steps = listOf(" - " to AccountState.EMPTY, "de" to AccountState.INCOMPLETE, "de89 3704 0044" to AccountState.INCOMPLETE,
        "DE89 3704 0044 0532 0130 00" to AccountState.COMPLETE, "DE89 3704 0044 0532 0130 01" to AccountState.INVALID)
    for ((typed, state) in steps) {
        val c = Accounts.checkAccount(AccountKind.IBAN, typed)
        check("checkAccount: '$typed' is $state", c.state == state) { "$c" }
        val why = listOf(c.code, c.reason, c.params, c.message)
        check("checkAccount: '$typed' says why only when invalid",
            if (state == AccountState.INVALID) why.all { it != null } else why.all { it == null }) { "$c" }
    }
    val typing = Accounts.checkAccount(AccountKind.IBAN, "de89 3704 0044")
    check("checkAccount: electronic and display", typing.electronic == "DE8937040044" && typing.display == "DE89 3704 0044") { "$typing" }
    check("checkAccount: display of a sort code and a BSB", Accounts.checkAccount(AccountKind.SORT_CODE, "1234").display == "12-34" &&
        Accounts.checkAccount(AccountKind.BSB, "062000").display == "062-000")
    // Reasons with their figures, as core gives them.
    val long = Accounts.checkAccount(AccountKind.IBAN, "DE89 3704 0044 0532 0130 001")
    check("checkAccount: LENGTH with expected and actual", long.code == IssueCode.INVALID_IBAN && long.reason == Reason.LENGTH &&
        long.params == AccountParams(22, 23, null) && long.message!!.contains("23")) { "$long" }
    val country = Accounts.checkAccount(AccountKind.BIC, "DEUTXXFF")
    check("checkAccount: COUNTRY with the letters", country.code == IssueCode.INVALID_BIC && country.reason == Reason.COUNTRY &&
        country.params == AccountParams(country = "XX")) { "$country" }
    val digits = Accounts.checkAccount(AccountKind.IBAN, "DE89 3704 0044 0532 0130 01")
    check("checkAccount: CHECK_DIGITS without figures", digits.reason == Reason.CHECK_DIGITS && digits.params == AccountParams()) { "$digits" }
    val type = Accounts.checkAccount(AccountKind.CUIT, "99")
    check("checkAccount: TYPE from two digits on", type.code == IssueCode.INVALID_CUIT && type.reason == Reason.TYPE) { "$type" }
    val aba = Accounts.checkAccount(AccountKind.ABA, "99")
    check("checkAccount: a routing number's code", aba.code == IssueCode.INVALID_ROUTING_NUMBER && aba.reason == Reason.TYPE) { "$aba" }
    val layout = Accounts.checkAccount(AccountKind.SORT_CODE, "12a")
    check("checkAccount: LAYOUT", layout.code == IssueCode.INVALID_SORT_CODE && layout.reason == Reason.LAYOUT && layout.electronic == "12A") { "$layout" }
    val complete = mapOf(AccountKind.IFSC to "HDFC0001234", AccountKind.CA_BRANCH to "00312345", AccountKind.CBU to "2850590940090418135201",
        AccountKind.CLABE to "002010077777777771", AccountKind.ABA to "021000021", AccountKind.BIC to "DEUTDEFF")
    for ((kind, value) in complete) {
        check("checkAccount: $kind $value complete", Accounts.checkAccount(kind, value).state == AccountState.COMPLETE)
    }
    // Texts are core's (FORMAT.md's); kinds by their FORMAT.md names, another is UNKNOWN_ACCOUNT_KIND.
    check("AccountKind: wire names", AccountKind.values().map { it.wireName } ==
        listOf("iban", "bic", "clabe", "cbu", "cuit", "ifsc", "sort_code", "bsb", "ca_branch", "aba")) { AccountKind.values().map { it.wireName }.toString() }
    check("AccountKind: toString is the wire name", AccountKind.SORT_CODE.toString() == "sort_code")
    check("AccountKind: fromWire reads every name", AccountKind.values().all { AccountKind.fromWire(it.wireName) == it })
    for (name in listOf("IBAN", "swift", "", " iban")) {
        val e = thrown { AccountKind.fromWire(name) }
        check("AccountKind: '$name' is UNKNOWN_ACCOUNT_KIND", e?.code == "UNKNOWN_ACCOUNT_KIND" && e.field == null &&
            e.message!!.startsWith("UNKNOWN_ACCOUNT_KIND: ") && e.message!!.split("UNKNOWN_ACCOUNT_KIND").size == 2) { "$e" }
    }
    check("AccountState: texts", AccountState.values().map { it.toString() } == listOf("empty", "incomplete", "complete", "invalid"))
    check("Reason: texts", Reason.values().map { it.toString() } == listOf("LAYOUT", "COUNTRY", "LENGTH", "TYPE", "CHECK_DIGITS"))

    // Issues carry the same reason and figures; other codes none.
    val v = Beneficiaries.validate(draft("DE", """{"bankId":"b","accountNumber":"DE89 3704 0044 0532 0130 001","bic":"DEUT"}"""))
    val byPath = v.issues.associateBy { it.path }
    check("issue: reason and params of an IBAN", byPath["paymentInfo.accountNumber"]?.let {
        it.code == IssueCode.INVALID_IBAN && it.reason == Reason.LENGTH && it.params == AccountParams(22, 23) } == true) { "$v" }
    check("issue: a BIC's LENGTH names only actual", byPath["paymentInfo.bic"]?.let {
        it.reason == Reason.LENGTH && it.params == AccountParams(actual = 4) } == true) { "$v" }
    val required = Beneficiaries.validate("{}").issues.filter { it.code == IssueCode.REQUIRED }
    check("issue: REQUIRED has no reason and no figures", required.isNotEmpty() && required.all { it.reason == null && it.params == AccountParams() }) { "$required" }
    val routing = Beneficiaries.validate(draft("US", """{"routingNumber":"021000022"}""")).issues.single()
    check("issue: a routing number's CHECK_DIGITS", routing.code == IssueCode.INVALID_ROUTING_NUMBER && routing.reason == Reason.CHECK_DIGITS) { "$routing" }
}

fun formTests() {
    val fields = Forms.beneficiaryForm("CO", "bank_account", "individual", RULES_CO, "CO", BANKS_CO)
    check("form: the fields in order", fields.map { it.path } ==
        listOf("firstName", "lastName", "paymentInfo", "paymentInfo.bankId", "paymentInfo.accountNumber")) { "$fields" }
    val byPath = fields.associateBy { it.path }
    check("form: a rules field with its description", byPath["firstName"] ==
        FormField("firstName", true, FormSource.RULES, FormInput.TEXT, emptyList(), null, null, "First name")) { "${byPath["firstName"]}" }
    check("form: an English label where the rules give none", byPath["lastName"]?.label == "Last name")
    check("form: paymentInfo is a fixed group", byPath["paymentInfo"]?.let { it.input == FormInput.GROUP && it.source == FormSource.FIXED && it.required } == true)
    check("form: the bank list as a choice", byPath["paymentInfo.bankId"]?.let {
        it.input == FormInput.CHOICE && it.options == listOf(FormOption("bank_co_001", "Banco Uno")) } == true) { "${byPath["paymentInfo.bankId"]}" }
    check("form: no account kind where the country does not say", byPath["paymentInfo.accountNumber"]?.let { it.account == null && it.length == null } == true)
    // Without documents: the fixed fields and the country's account fields, with kinds and lengths.
    val us = Forms.beneficiaryForm("US", "bank_account")
    check("form: US", us.map { "${it.path} ${it.source} ${it.required} ${it.account} ${it.length}" } == listOf(
        "paymentInfo fixed true null null",
        "paymentInfo.routingNumber fixed true aba AccountLength(min=9, max=9)",
        "paymentInfo.accountNumber country false null null")) { "$us" }
    val de = Forms.beneficiaryForm("DE", "bank_account")
    check("form: DE's IBAN and BIC", de.filter { it.account != null }.map { "${it.path} ${it.account} ${it.length}" } == listOf(
        "paymentInfo.accountNumber iban AccountLength(min=15, max=34)", "paymentInfo.bic bic AccountLength(min=8, max=11)")) { "$de" }
    check("form: MX spei is a CLABE", Forms.beneficiaryForm("MX", "spei").last().let { it.account == AccountKind.CLABE && it.length == AccountLength(18, 18) })
    check("form: texts", FormSource.values().map { it.toString() } == listOf("fixed", "rules", "country") &&
        FormInput.values().map { it.toString() } == listOf("group", "text", "choice"))
    // The validator's documents: the same fields.
    BeneficiaryValidator(RULES_CO, "CO", BANKS_CO).use { v ->
        check("validator.form: as beneficiaryForm", v.form("CO", "bank_account", "individual") == fields && v.form("CO", "bank_account") == fields)
        val e = thrown { v.form("MX", "bank_account") }
        check("validator.form: RULES_MISMATCH", e?.code == "RULES_MISMATCH" && e.field == null) { "$e" }
        check("validator.form: another owner type", thrown { v.form("CO", "bank_account", "business") }?.code == "RULES_MISMATCH")
    }
    // Refusals: the code, and the field for INVALID_VALUE, in FORMAT.md's order.
    val refusals = listOf(
        Triple("a lower-case country", { Forms.beneficiaryForm("co", "bank_account") }, "INVALID_VALUE country"),
        Triple("an empty payment type", { Forms.beneficiaryForm("CO", "") }, "INVALID_VALUE paymentType"),
        Triple("an owner type that is not one", { Forms.beneficiaryForm("CO", "bank_account", "company") }, "INVALID_VALUE ownerType"),
        Triple("the country before the documents", { Forms.beneficiaryForm("XX", "bank_account", null, "[]") }, "INVALID_VALUE country"),
        Triple("rules that cannot be read", { Forms.beneficiaryForm("CO", "bank_account", null, "[]") }, "RULES_UNREADABLE null"),
        Triple("rules of another country", { Forms.beneficiaryForm("MX", "bank_account", null, RULES_CO) }, "RULES_MISMATCH null"),
        Triple("a bank list that cannot be read", { Forms.beneficiaryForm("CO", "bank_account", banksCountry = "CO", banksJson = "[]") }, "BANKS_UNREADABLE null"),
        Triple("a bank list of another country", { Forms.beneficiaryForm("CO", "bank_account", banksCountry = "MX", banksJson = BANKS_CO) }, "BANKS_MISMATCH null"),
    )
    for ((what, call, want) in refusals) {
        val e = thrown { call() }
        check("form: $what is refused ($want)", e != null && "${e.code} ${e.field}" == want && e.detail.isNotBlank()) { "$e" }
    }
    val country = thrown { Forms.beneficiaryForm("co", "bank_account") }
    check("form: the refusal's message names code and field once", country?.message?.startsWith("INVALID_VALUE (country): ") == true &&
        country.message!!.split("INVALID_VALUE").size == 2) { "${country?.message}" }

    // normalizeBeneficiary: account details to their electronic form, nothing else.
    val draft = """{"ownerType":"individual","country":"DE","paymentType":"bank_account","firstName":" Ana ",""" +
        """"paymentInfo":{"bankId":"b1","accountNumber":"de89 3704 0044 0532 0130 00","bic":"deut de ff","note":"a - b"}}"""
    val out = com.google.gson.JsonParser.parseString(Forms.normalizeBeneficiary(draft)).asJsonObject
    val info = out.getAsJsonObject("paymentInfo")
    check("normalize: IBAN and BIC electronic, the rest as it was", info.get("accountNumber").asString == "DE89370400440532013000" &&
        info.get("bic").asString == "DEUTDEFF" && info.get("note").asString == "a - b" && info.get("bankId").asString == "b1" &&
        out.get("firstName").asString == " Ana " && out.keySet() == setOf("ownerType", "country", "paymentType", "firstName", "paymentInfo")) { "$out" }
    check("normalize: twice changes nothing more", Forms.normalizeBeneficiary(Forms.normalizeBeneficiary(draft)) == Forms.normalizeBeneficiary(draft))
    check("normalize: a routing number too", Forms.normalizeBeneficiary(draft("US", """{"routingNumber":"021-000-021"}""")).contains("\"021000021\""))
    check("normalize: -- stays --", Forms.normalizeBeneficiary(draft("DE", """{"accountNumber":"--"}""")).contains("\"--\""))
    check("normalize: not a draft comes back as it is", Forms.normalizeBeneficiary("[1,2]") == "[1,2]")
    check("normalize: MALFORMED_JSON", thrown { Forms.normalizeBeneficiary("{") }?.code == "MALFORMED_JSON")
}

/** A store written in Kotlin: entry texts in a map, compare-and-set under the object's lock. */
class MapStore : ClaimStore {
    val map = HashMap<String, String>()
    @Synchronized override fun load(id: String, time: StoreTime): String? = map[id]
    @Synchronized override fun compareAndSet(id: String, expected: String?, new: String?, time: StoreTime): Boolean {
        if (map[id] != expected) return false
        if (new == null) map.remove(id) else map[id] = new
        return true
    }
}

/** The same store with suspend functions: each call suspends and resumes on a pool thread. */
class SuspendStore(private val pool: ExecutorService) {
    private val map = HashMap<String, String>()
    suspend fun load(id: String, time: StoreTime): String? = suspendCoroutine { c -> pool.execute { c.resume(synchronized(map) { map[id] }) } }
    suspend fun compareAndSet(id: String, expected: String?, new: String?, time: StoreTime): Boolean = suspendCoroutine { c ->
        pool.execute {
            c.resume(synchronized(map) {
                if (map[id] != expected) false
                else { if (new == null) map.remove(id) else map[id] = new; true }
            })
        }
    }
    fun entry(id: String): String? = synchronized(map) { map[id] }
}

/** One step against a suspending store: the task decides, the coroutine awaits the store. */
suspend fun claimSuspending(store: SuspendStore, step: String, id: String, token: String, atMs: Long,
                            leaseMs: Long = 30000L, windowMs: Long? = null): ClaimOutcome {
    return ClaimTask(step, id, token, atMs, leaseMs, windowMs).use { task ->
        var need = task.start()
        while (need !is ClaimNeed.Done) {
            need = when (need) {
                is ClaimNeed.Load -> task.loaded(store.load(need.id, need.time))
                is ClaimNeed.CompareAndSet -> task.swapped(store.compareAndSet(need.id, need.expected, need.new, need.time))
                is ClaimNeed.Done -> need
            }
        }
        need.outcome
    }
}

/** Starts a coroutine with the standard library only; its result as a future. */
fun <T> launch(block: suspend () -> T): CompletableFuture<T> {
    val f = CompletableFuture<T>()
    block.startCoroutine(Continuation(EmptyCoroutineContext) { r -> r.fold({ f.complete(it) }, { f.completeExceptionally(it) }) })
    return f
}

fun outcomeOrCode(block: () -> ClaimOutcome): String = try { block().toString() } catch (e: XborderException) { e.code }

fun claimsTests() {
    val pool = Executors.newFixedThreadPool(4)
    val racers = Executors.newFixedThreadPool(8)
    try {
        // The built-in store, a Kotlin store and a task over a suspending store agree, step by step.
        val kinds = mutableSetOf<String>()
        for (seed in 0 until 4) {
            val lease = 50L
            val window = if (seed % 2 == 1) 80L else null
            val builtin = Claims(lease, window)
            val mine = Claims.withStore(MapStore(), lease, window)
            val suspending = SuspendStore(pool)
            val rng = java.util.Random(seed.toLong())
            var at = 0L
            var disagreements = 0
            repeat(300) {
                at += rng.nextInt(30).toLong()
                val step = listOf("claim", "claim", "complete", "release", "finish")[rng.nextInt(5)]
                val id = listOf("evt_1", "evt_2", "evt_3", "")[rng.nextInt(4)]
                val token = listOf("r1", "r2", "r3", "")[rng.nextInt(4)]
                val a = outcomeOrCode { builtin.step(step, id, token, at) }
                val b = outcomeOrCode { mine.step(step, id, token, at) }
                val c = try { launch { claimSuspending(suspending, step, id, token, at, lease, window) }.get(10, TimeUnit.SECONDS).toString() }
                    catch (e: java.util.concurrent.ExecutionException) { (e.cause as? XborderException)?.code ?: e.toString() }
                    catch (e: XborderException) { e.code }
                if (a != b || b != c) { disagreements++; println("  seed $seed: $step $id $token $at: $a / $b / $c") }
                kinds += a
            }
            check("claims: built-in, Kotlin store and suspend task agree (seed $seed)", disagreements == 0)
        }
        check("claims: the sequences cover the outcomes",
            kinds.containsAll(listOf("claimed", "in_progress", "completed", "stale", "INVALID_STEP"))) { "$kinds" }
        // Texts and codes.
        val c = Claims()
        check("claims: claimed", c.step("claim", "evt_1", "r1", 0L) == ClaimOutcome.CLAIMED)
        check("claims: in progress", c.step("claim", "evt_1", "r2", 10L).toString() == "in_progress")
        check("claims: completed acknowledges", c.step("complete", "evt_1", "r1", 20L).acknowledges())
        check("claims: duplicate", c.step("claim", "evt_1", "r3", 900L) == ClaimOutcome.DUPLICATE)
        val store = MapStore()
        Claims.withStore(store, 1000L).step("claim", "evt_1", "r1", 5L)
        check("claims: the store holds core's text", store.map == mapOf("evt_1" to "h:5:r1")) { "${store.map}" }
        for ((args, field) in listOf(listOf("finish", "e", "r") to "do", listOf("claim", "", "r") to "id", listOf("claim", "e", "") to "token")) {
            try {
                c.step(args[0], args[1], args[2], 0L)
                check("claims: invalid $field throws", false)
            } catch (e: XborderException) {
                check("claims: invalid $field", e.code == "INVALID_STEP" && e.field == field) { e.toString() }
            }
        }
        // Replies: core's table, with the lease of either kind of Claims.
        for (claims in listOf(Claims(2500L), Claims.withStore(MapStore(), 2500L))) {
            check("claims: reply after claimed is null", claims.reply("claim", ClaimOutcome.CLAIMED) == null)
            check("claims: in_progress is 503, Retry-After 3", claims.reply("claim", ClaimOutcome.IN_PROGRESS) == ClaimReply(503, 3L))
            check("claims: duplicate is 200", claims.reply("claim", ClaimOutcome.DUPLICATE) == ClaimReply(200, null))
            check("claims: stale on complete is 200", claims.reply("complete", ClaimOutcome.STALE) == ClaimReply(200, null))
            check("claims: stale on release is 500", claims.reply("release", ClaimOutcome.STALE) == ClaimReply(500, null))
            check("claims: reply to a step that is not one", try { claims.reply("finish", ClaimOutcome.STALE); false } catch (e: XborderException) { e.code == "INVALID_STEP" && e.field == "do" })
        }
        check("claims: a store error's reply", Claims.errorReply("STORE_UNAVAILABLE") == ClaimReply(503, 1L) && Claims.errorReply("INVALID_STEP") == ClaimReply(500, null))
        // A store that throws, whatever it throws: STORE_UNAVAILABLE.
        for (thrown in listOf(RuntimeException("redis down"), XborderException("EMPTY_SECRET", null, "not a store code"), IllegalStateException())) {
            val failing = object : ClaimStore {
                override fun load(id: String, time: StoreTime): String? = throw thrown
                override fun compareAndSet(id: String, expected: String?, new: String?, time: StoreTime): Boolean = throw thrown
            }
            check("claims: a store throwing ${thrown::class.simpleName} is STORE_UNAVAILABLE",
                codeOf { Claims.withStore(failing).step("claim", "evt_1", "r1", 0L) } == "STORE_UNAVAILABLE")
        }
        val foreign = object : ClaimStore {
            override fun load(id: String, time: StoreTime): String? = "not an entry"
            override fun compareAndSet(id: String, expected: String?, new: String?, time: StoreTime) = true
        }
        check("claims: foreign text is STORE_UNAVAILABLE", codeOf { Claims.withStore(foreign).step("claim", "evt_1", "r1", 0L) } == "STORE_UNAVAILABLE")
        // Eight threads claim one id at once: exactly one wins, in either store.
        for ((name, claims) in listOf("built-in" to Claims(), "Kotlin store" to Claims.withStore(MapStore()))) {
            var rounds = 0
            repeat(20) { round ->
                val barrier = CyclicBarrier(8)
                val got = (0 until 8).map { i -> CompletableFuture.supplyAsync({ barrier.await(); claims.step("claim", "evt_$round", "r$i", 1000L) }, racers) }
                    .map { it.get(10, TimeUnit.SECONDS) }
                if (got.count { it == ClaimOutcome.CLAIMED } == 1 && got.count { it == ClaimOutcome.IN_PROGRESS } == 7) rounds++
                else println("  $name round $round: $got")
            }
            check("claims: one winner among 8 threads ($name)", rounds == 20)
        }
        // Suspending claims racing on one id: one winner, and it can complete.
        val suspending = SuspendStore(pool)
        val raced = (0 until 6).map { i -> launch { claimSuspending(suspending, "claim", "evt_1", "r$i", 0L) } }.map { it.get(10, TimeUnit.SECONDS) }
        check("claims: one winner among 6 coroutines", raced.count { it == ClaimOutcome.CLAIMED } == 1 && raced.count { it == ClaimOutcome.IN_PROGRESS } == 5) { "$raced" }
        val winner = suspending.entry("evt_1")!!.split(":", limit = 3)[2]
        check("claims: the coroutine winner completes",
            launch { claimSuspending(suspending, "complete", "evt_1", winner, 5L) }.get(10, TimeUnit.SECONDS) == ClaimOutcome.COMPLETED)
        // The task's own checks.
        val t = ClaimTask("claim", "evt_1", "r1", 0L, 100L)
        check("task: starts with a load", t.start() == ClaimNeed.Load("evt_1", StoreTime(0L, null, null)))
        val need = t.loaded(null)
        check("task: asks a compare-and-set of core's texts", need == ClaimNeed.CompareAndSet("evt_1", null, "h:0:r1", StoreTime(0L, 200L, 200L))) { "$need" }
        check("task: a lost race loads again", t.swapped(false) is ClaimNeed.Load)
        check("task: foreign text", codeOf { t.loaded("garbage") } == "STORE_UNAVAILABLE")
        t.start(); t.loaded(null)
        try {
            t.failed("redis: connection refused")
            check("task: failed throws", false)
        } catch (e: XborderException) {
            check("task: failed is STORE_UNAVAILABLE with the host's message", e.code == "STORE_UNAVAILABLE" && e.detail.contains("connection refused")) { e.toString() }
        }
        check("task: a late answer after failed is refused", codeOf { t.swapped(true) } == "STORE_UNAVAILABLE")
    } finally {
        pool.shutdown()
        racers.shutdown()
    }
}

/** [SuspendStore] as the API's SuspendClaimStore (each call suspends, resumed on a pool thread). */
class SuspendStoreAdapter(val store: SuspendStore) : SuspendClaimStore {
    override suspend fun load(id: String, time: StoreTime): String? = store.load(id, time)
    override suspend fun compareAndSet(id: String, expected: String?, new: String?, time: StoreTime): Boolean =
        store.compareAndSet(id, expected, new, time)
}

/** handleDelivery, the one call (issue 33): blocking over Claims, suspending over a store. */
fun handlingTests() {
    val pool = Executors.newFixedThreadPool(2)
    try {
        val receiver = Receiver(SECRET)
        val (body, sig) = signed("order:created", "evt_h1")
        // Blocking, over the built-in Claims and a Kotlin store: 200, persisted once; the
        // redelivery is a duplicate and persists nothing.
        for ((name, claims) in listOf("built-in" to Claims(), "Kotlin store" to Claims.withStore(MapStore()))) {
            val persisted = mutableListOf<String>()
            val a = handleDelivery(receiver, claims, body, sig) { persisted += it.id }
            check("handle ($name): 200, completed, persisted once",
                a == DeliveryAnswer(200, null, ClaimOutcome.COMPLETED, null, true) && persisted == listOf("evt_h1")) { "$a $persisted" }
            val again = handleDelivery(receiver, claims, body, sig) { persisted += it.id }
            check("handle ($name): the redelivery is a duplicate, not persisted",
                again == DeliveryAnswer(200, null, ClaimOutcome.DUPLICATE, null, false) && persisted.size == 1) { "$again $persisted" }
            // A failing persist: 500 PERSIST_FAILED, the claim released, the exception given back.
            val (body2, sig2) = signed("order:created", "evt_h2")
            val boom = IllegalStateException("db down")
            val failed = handleDelivery(receiver, claims, body2, sig2, "t1", { 1000L }) { throw boom }
            check("handle ($name): a failing persist is 500 PERSIST_FAILED, released",
                failed.status == 500 && failed.code == "PERSIST_FAILED" && failed.outcome == ClaimOutcome.RELEASED && !failed.persisted) { "$failed" }
            check("handle ($name): the persist's exception is given back", failed.persistError === boom) { "${failed.persistError}" }
            val retried = handleDelivery(receiver, claims, body2, sig2, "t2", { 2000L }) { persisted += it.id }
            check("handle ($name): the retry persists", retried.status == 200 && retried.persisted && persisted.last() == "evt_h2") { "$retried" }
        }
        // Held by another request: 503 with the lease as Retry-After, nothing persisted.
        val held = Claims(30_000L)
        held.step("claim", "evt_h3", "other", 0L)
        val (body3, sig3) = signed("order:created", "evt_h3")
        val busy = handleDelivery(receiver, held, body3, sig3, clock = { 10L }) { error("not called") }
        check("handle: held elsewhere is 503, Retry-After 30", busy.status == 503 && busy.retryAfterS == 30L &&
            busy.headers == mapOf("Retry-After" to "30") && busy.outcome == ClaimOutcome.IN_PROGRESS) { "$busy" }
        // Refused before any claim: 400 with the signature's code.
        val bad = handleDelivery(receiver, Claims(), body3, "00".repeat(32)) { error("not called") }
        check("handle: a bad signature is 400 SIGNATURE_MISMATCH", bad == DeliveryAnswer(400, null, null, "SIGNATURE_MISMATCH", false)) { "$bad" }
        check("handle: a negative clock is refused", refusal { handleDelivery(receiver, Claims(), body, sig, clock = { -1L }) {} } == "atMs must be a number >= 0, got -1")

        // Suspending, over a store whose every call suspends (resumed on a pool thread).
        val store = SuspendStore(pool)
        val mine = SuspendStoreAdapter(store)
        var count = 0
        val (body4, sig4) = signed("order:created", "evt_h4")
        val s = launch { handleDelivery(receiver, mine, body4, sig4) { count++ } }.get(10, TimeUnit.SECONDS)
        check("handle (suspend): 200, completed, persisted once",
            s == DeliveryAnswer(200, null, ClaimOutcome.COMPLETED, null, true) && count == 1) { "$s $count" }
        check("handle (suspend): the store holds the done entry", store.entry("evt_h4")?.startsWith("d:") == true) { "${store.entry("evt_h4")}" }
        val dup = launch { handleDelivery(receiver, mine, body4, sig4) { count++ } }.get(10, TimeUnit.SECONDS)
        check("handle (suspend): the redelivery is a duplicate", dup.outcome == ClaimOutcome.DUPLICATE && dup.status == 200 && count == 1) { "$dup" }
        val (body5, sig5) = signed("order:created", "evt_h5")
        val boom = java.io.IOException("queue full")
        val f = launch {
            handleDelivery(receiver, mine, body5, sig5, leaseMs = 1000L) { suspendCoroutine<Unit> { c -> pool.execute { c.resumeWith(Result.failure(boom)) } } }
        }.get(10, TimeUnit.SECONDS)
        check("handle (suspend): a failing persist is 500 PERSIST_FAILED with the exception",
            f.status == 500 && f.code == "PERSIST_FAILED" && f.outcome == ClaimOutcome.RELEASED && f.persistError === boom) { "$f" }
        check("handle (suspend): the release freed the entry", store.entry("evt_h5") == null) { "${store.entry("evt_h5")}" }
        // A store that throws: 503 STORE_UNAVAILABLE, nothing persisted.
        val down = object : SuspendClaimStore {
            override suspend fun load(id: String, time: StoreTime): String? = throw java.io.IOException("connection refused")
            override suspend fun compareAndSet(id: String, expected: String?, new: String?, time: StoreTime): Boolean = throw IllegalStateException()
        }
        val u = launch { handleDelivery(receiver, down, body5, sig5) { count++ } }.get(10, TimeUnit.SECONDS)
        check("handle (suspend): a store that throws is 503 STORE_UNAVAILABLE",
            u.status == 503 && u.code == "STORE_UNAVAILABLE" && u.retryAfterS != null && !u.persisted && count == 1) { "$u" }
        // A cancelled persist cancels the handling: the CancellationException comes out.
        val cancelled = try {
            launch { handleDelivery(receiver, mine, signed("order:created", "evt_h6").first, signed("order:created", "evt_h6").second) {
                throw java.util.concurrent.CancellationException("cancelled") } }.get(10, TimeUnit.SECONDS)
            null
        } catch (e: java.util.concurrent.CancellationException) { e } // the future gives it as is
        catch (e: java.util.concurrent.ExecutionException) { e.cause }
        check("handle (suspend): a cancellation is rethrown", cancelled is java.util.concurrent.CancellationException && cancelled.message == "cancelled") { "$cancelled" }

        // Act by act: the order is core's; out of order is INVALID_STEP.
        DeliveryHandling(receiver, Claims(), body, sig, "t").use { h ->
            check("handling: starts with the claim", h.next() == HandlingAct.Claim("evt_h1"))
            check("handling: persisted before the claim is INVALID_STEP", codeOf { h.persisted(true) } == "INVALID_STEP")
            val p = h.step(5L)
            check("handling: the claim goes on to the persist", p is HandlingAct.Persist && p.envelope.id == "evt_h1") { "$p" }
            check("handling: no answer yet", h.answer() == null)
            check("handling: then the complete", h.persisted(true) == HandlingAct.Complete("evt_h1"))
            val end = h.step(6L)
            check("handling: answered", end is HandlingAct.Answer && end.answer == h.answer() && end.answer.status == 200) { "$end" }
        }
        // In a transaction: claim, persist (not committed), complete, Commit, then the answer; a
        // failed commit releases the claim (500 PERSIST_FAILED). lastStep: each step's result.
        DeliveryHandling(receiver, Claims(), body, sig, "t", inTransaction = true).use { h ->
            check("transaction: inTransaction", h.inTransaction)
            check("transaction: no step yet", h.lastStep() == null)
            check("transaction: committed before the commit is INVALID_STEP", codeOf { h.committed(true) } == "INVALID_STEP")
            check("transaction: the claim goes on to the persist", h.step(1L) is HandlingAct.Persist)
            check("transaction: lastStep claim:claimed", h.lastStep() == HandlingStep("claim", ClaimOutcome.CLAIMED, null)) { "${h.lastStep()}" }
            check("transaction: then the complete", h.persisted(true) == HandlingAct.Complete("evt_h1"))
            check("transaction: the complete goes on to the commit", h.step(2L) == HandlingAct.Commit("evt_h1"))
            check("transaction: lastStep complete:completed", h.lastStep() == HandlingStep("complete", ClaimOutcome.COMPLETED, null)) { "${h.lastStep()}" }
            check("transaction: no answer before the commit", h.answer() == null)
            val end = h.committed(true)
            check("transaction: committed, 200 completed", end is HandlingAct.Answer && end.answer.status == 200 &&
                end.answer.outcome == ClaimOutcome.COMPLETED && end.answer.persisted) { "$end" }
        }
        DeliveryHandling(receiver, Claims(), body, sig, "t").use { h ->
            check("transaction: not by default", !h.inTransaction)
        }
        DeliveryHandling.withStoreSteps(receiver, body, sig, "t", 1000L, inTransaction = true).use { h ->
            check("transaction (own store): a load", h.step(0L) == HandlingAct.Load("evt_h1", StoreTime(0L, null, null)))
            val held = h.loaded(null)
            check("transaction (own store): a compare-and-set", held is HandlingAct.CompareAndSet) { "$held" }
            val heldEntry = (held as HandlingAct.CompareAndSet).new
            check("transaction (own store): the persist", h.swapped(true) is HandlingAct.Persist)
            check("transaction (own store): the complete", h.persisted(true) == HandlingAct.Complete("evt_h1"))
            val load = h.step(1L)
            check("transaction (own store): the complete loads (on the transaction)", load == HandlingAct.Load("evt_h1", StoreTime(1L, null, null))) { "$load" }
            val cas = h.loaded(heldEntry)
            check("transaction (own store): and compare-and-sets", cas is HandlingAct.CompareAndSet) { "$cas" }
            check("transaction (own store): then the commit", h.swapped(true) == HandlingAct.Commit("evt_h1"))
            val release = h.committed(false)
            check("transaction (own store): a failed commit releases", release == HandlingAct.Release("evt_h1")) { "$release" }
            var act = h.step(2L)
            var rounds = 0
            var entry: String? = heldEntry  // the commit failed: the store still holds the claim
            while (act !is HandlingAct.Answer && rounds++ < 8) {
                act = when (act) {
                    is HandlingAct.Load -> h.loaded(entry)
                    is HandlingAct.CompareAndSet -> h.swapped(true).also { entry = act.new }
                    else -> break
                }
            }
            check("transaction (own store): 500 PERSIST_FAILED after the release", act is HandlingAct.Answer &&
                act.answer.status == 500 && act.answer.code == "PERSIST_FAILED" && !act.answer.persisted) { "$act" }
        }
        DeliveryHandling.withStoreSteps(receiver, body, sig, "t", 1000L).use { h ->
            check("handling (own store): the claim asks a load", h.step(0L) == HandlingAct.Load("evt_h1", StoreTime(0L, null, null)))
            check("handling (own store): then a compare-and-set", h.loaded(null) == HandlingAct.CompareAndSet("evt_h1", null, "h:0:t", StoreTime(0L, 2000L, 2000L)))
            check("handling (own store): applied, the persist", h.swapped(true) is HandlingAct.Persist)
        }
    } finally {
        pool.shutdown()
    }
}

/** What a call gives: its value, or its exception's class, code and first message line. */
fun outcomeOf(block: () -> Any?): String = try {
    "value ${block()}"
} catch (e: XborderException) {
    "XborderException ${e.code} ${e.field} ${e.message?.lineSequence()?.first()}"
} catch (e: Exception) {
    "${e.javaClass.name} ${e.message}"
}

/**
 * The speed measure (dev.xborder.internal.Speed, compiled in this module with the generated file):
 * on by default, and the hot calls answer as the generated wrappers do (Speed.on = false), errors,
 * a Kotlin store calling back into the library and several threads included.
 */
fun speedTests() {
    val speed = dev.xborder.internal.Speed
    check("speed: on by default, written for uniffi 0.32.2", speed.on && speed.UNIFFI_VERSION == "0.32.2")
    val good = Webhooks.sign(SECRET, BODY)
    val bad = good.dropLast(1) + (if (good.endsWith("0")) "1" else "0")
    val store = object : ClaimStore {
        val map = HashMap<String, String>()
        val seen = ArrayList<String>()
        @Synchronized override fun load(id: String, time: StoreTime): String? {
            seen += Events.classify(id).kind.toString()
            seen += outcomeOf { Webhooks.verify(SECRET, BODY, bad) }
            seen += Receiver(SECRET).receive(BODY, good).action.toString()
            return map[id]
        }
        @Synchronized override fun compareAndSet(id: String, expected: String?, new: String?, time: StoreTime): Boolean {
            seen += outcomeOf { Webhooks.decodeEnvelope("{}".toByteArray()) }
            if (map[id] != expected) return false
            if (new == null) map.remove(id) else map[id] = new
            return true
        }
    }
    fun run(): List<String> {
        val rx = Receiver(SECRET, 10L)
        val out = mutableListOf(
            outcomeOf { Events.classify("order:created") }, outcomeOf { Events.classify("") }, outcomeOf { Events.classify("order:\uD800") },
            outcomeOf { Webhooks.verify(SECRET, BODY, good) }, outcomeOf { Webhooks.verify(SECRET, BODY, bad) },
            outcomeOf { Webhooks.verify(SECRET, BODY, null) }, outcomeOf { Webhooks.verify("", BODY, good) },
            outcomeOf { Webhooks.decodeEnvelope(BODY) }, outcomeOf { Webhooks.decodeEnvelope("{".toByteArray()) },
            outcomeOf { Webhooks.decodeEnvelope(BODY, DecodeLimits(8, 64)) },
            outcomeOf { rx.receive(BODY, good) }, outcomeOf { rx.receive(BODY, bad) }, outcomeOf { rx.commit("evt_1") },
            outcomeOf { rx.receive(BODY, good) },
        )
        rx.close()
        out += outcomeOf { rx.receive(BODY, good) }
        store.map.clear(); store.seen.clear()
        val claims = Claims(store)
        out += outcomeOf { claims.step("claim", "order:created", "t", 1L) }
        out += outcomeOf { claims.step("claim", "order:created", "u", 2L) }
        out += store.seen
        // Four threads at once, each with its own answers to compare.
        val shared = Receiver(SECRET)
        val results = arrayOfNulls<List<String>>(4)
        (0 until 4).map { t ->
            Thread {
                results[t] = (0 until 200).map { i ->
                    when ((i + t) % 3) {
                        0 -> outcomeOf { Webhooks.verify(SECRET, BODY, if (i % 2 == 0) good else bad) }
                        1 -> outcomeOf { shared.receive(BODY, if (i % 4 == 1) null else good).action }
                        else -> outcomeOf { Events.classify(if (i % 2 == 0) "order:created" else "x:$i") }
                    }
                }
            }.also { it.start() }
        }.forEach { it.join() }
        shared.close()
        results.forEach { out += it ?: listOf("a thread failed") }
        return out
    }
    try {
        speed.on = false
        val off = run()
        speed.on = true
        val on = run()
        check("speed: the same answers as the generated wrappers", on == off) { on.zip(off).filter { it.first != it.second }.take(3).toString() }
        check("speed: real answers", on[0] == "value EventClassification(kind=live, entity=order, action=created)" &&
            on[2].startsWith("java.nio.charset.MalformedInputException") && on[3] == "value kotlin.Unit" &&
            on[4].startsWith("XborderException SIGNATURE_MISMATCH null") && on[5].startsWith("XborderException MISSING_SIGNATURE") &&
            on[6].startsWith("XborderException EMPTY_SECRET") && on[8].startsWith("XborderException MALFORMED_JSON") &&
            on[9].startsWith("XborderException BODY_TOO_LARGE") && on[10].startsWith("value Decision(action=process") &&
            on[11].contains("errorCode=SIGNATURE_MISMATCH") && on[13].startsWith("value Decision(action=duplicate") &&
            on[14] == "java.lang.IllegalStateException Receiver object has already been destroyed" &&
            on[15] == "value claimed" && on[16] == "value in_progress") { on.take(17).toString() }
        val inner = on.subList(17, on.size)
        check("speed: re-entrant store calls went through", inner[0] == "live" && inner[2] == "process" &&
            inner[1].startsWith("XborderException SIGNATURE_MISMATCH null SIGNATURE_MISMATCH: the signature does not match") &&
            inner[3] == "XborderException MISSING_FIELD id MISSING_FIELD (id): `id` is absent or null") { inner.take(8).toString() }
    } finally {
        speed.on = true
    }
}
