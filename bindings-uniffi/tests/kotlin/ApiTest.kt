// The Kotlin binding's own API tests (run by bindings-uniffi/test.sh): one secret is the common
// case and is never split; a rotation takes a named list; pagination errors carry their field.
// Issue 12: in Python a string secret was read as one secret per character. test.sh compiles it
// with Readme.kt, the kotlin.md snippet wrapped as `fun readmeSnippet()`, so the doc runs too.
import dev.xborder.*
import javax.crypto.Mac
import javax.crypto.spec.SecretKeySpec

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
fun codeOf(block: () -> Unit): String? = try { block(); null } catch (e: XborderException) { e.errorCode() }

fun main() {
    // Every proper prefix of the secret, each single character: refused by verify and receive.
    val keys = (1 until SECRET.length).map { SECRET.substring(0, it) } + SECRET.map { it.toString() }.toSet()
    for (k in keys) {
        val forged = hmacHex(k.toByteArray(Charsets.UTF_8), BODY)
        check("verify refuses key '$k'", codeOf { verify(SECRET, BODY, forged) } == "SIGNATURE_MISMATCH")
        val d = Receiver(SECRET).receive(BODY, forged)
        check("receive refuses key '$k'", d.action == Action.REJECT && d.errorCode == "SIGNATURE_MISMATCH") { "$d" }
    }
    // The whole secret as UTF-8 bytes.
    val good = hmacHex(SECRET.toByteArray(Charsets.UTF_8), BODY)
    check("sign is HMAC of the UTF-8 key", sign(SECRET, BODY) == good)
    check("verify accepts the whole secret", codeOf { verify(SECRET, BODY, good) } == null)
    check("receive accepts the whole secret", Receiver(SECRET).receive(BODY, good).action == Action.PROCESS)
    // Non-ASCII: UTF-8, not Latin-1.
    val secret = "clé_é"
    val utf8 = hmacHex(secret.toByteArray(Charsets.UTF_8), BODY)
    val latin1 = hmacHex(secret.toByteArray(Charsets.ISO_8859_1), BODY)
    check("UTF-8 and Latin-1 keys differ", utf8 != latin1)
    check("non-ASCII secret signs as UTF-8", sign(secret, BODY) == utf8)
    check("non-ASCII secret verifies as UTF-8", codeOf { verify(secret, BODY, utf8) } == null)
    check("non-ASCII secret refuses Latin-1", codeOf { verify(secret, BODY, latin1) } == "SIGNATURE_MISMATCH")
    // Whitespace is part of the secret; empty is EMPTY_SECRET.
    for (padded in listOf(" $SECRET", "$SECRET\n")) {
        check("padded secret is another key", codeOf { verify(padded, BODY, good) } == "SIGNATURE_MISMATCH")
    }
    check("empty secret", codeOf { Receiver("") } == "EMPTY_SECRET")
    check("empty list", codeOf { Receiver.withSecrets(emptyList()) } == "EMPTY_SECRET")
    check("empty verify list", codeOf { verifyWithSecrets(emptyList(), BODY, good) } == "EMPTY_SECRET")
    // Rotation through the named list.
    val old = hmacHex("whsec_old".toByteArray(), BODY)
    check("rotation verify", codeOf { verifyWithSecrets(listOf("whsec_old", SECRET), BODY, old) } == null)
    check("rotation receive", Receiver.withSecrets(listOf("whsec_old", SECRET), 10uL).receive(BODY, old).action == Action.PROCESS)
    check("rotation refuses others", codeOf { verifyWithSecrets(listOf("whsec_old", SECRET), BODY, hmacHex("w".toByteArray(), BODY)) } == "SIGNATURE_MISMATCH")
    // Pagination: filters, case-insensitive sort order, errors with their field.
    check("filters", listQuery("""{"sortOrder":"desc","filters":{"status":"success"}}""") ==
        "page=0&pageSize=10&sortBy=createdAt&sortOrder=DESC&status=success")
    try {
        listQuery("""{"status":"success"}""")
        check("unknown parameter throws", false)
    } catch (e: XborderException.Pagination) {
        check("unknown parameter code and field", e.code == "UNKNOWN_PARAMETER" && e.field == "status" && e.errorField() == "status") { "${e.code} ${e.field}" }
    }
    val readme = try { readmeSnippet(); null } catch (e: Throwable) { e.toString() }
    check("the kotlin.md snippet runs", readme == null) { readme ?: "" }
    println("kotlin api: $passed passed, $failed failed")
    if (failed > 0) kotlin.system.exitProcess(1)
}
