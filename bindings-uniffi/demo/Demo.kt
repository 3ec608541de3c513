// A small scenario through the Kotlin API (package dev.xborder, over the generated binding): a receiver takes a signed batch of deliveries
// (valid, tampered, duplicate, crash before commit, unknown event) and beneficiary drafts are
// validated against the server's rules and bank list; the form those documents ask for, and an IBAN
// checked as it is typed. Run: bash bindings-uniffi/demo.sh
import dev.xborder.*
import java.io.File

const val SECRET = "whsec_demo"

fun envelope(id: String, event: String, type: String, data: String) =
    """{"id":"$id","event":"$event","entity":{"id":"${type}_1","type":"$type","data":$data}}"""

class Delivery(val label: String, val body: ByteArray, val signature: String?, val crashBeforeCommit: Boolean = false)

fun main(args: Array<String>) {
    val fixtures = File(args.getOrElse(0) { "core/examples/fixtures" })

    println("== webhooks: one receiver, a batch of deliveries")
    val created = envelope("evt_1", "order:created", "order", """{"amount":"125.00","currency":"USD"}""").toByteArray()
    val success = envelope("evt_2", "order:success", "order", """{"status":"success"}""").toByteArray()
    val unknown = envelope("evt_3", "order:teleported", "order", "{}").toByteArray()
    val tampered = created.copyOf().also { it[it.size - 5] = '9'.code.toByte() }
    val batch = listOf(
        Delivery("valid order:created", created, Webhooks.sign(SECRET, created)),
        Delivery("tampered body (signature of the original)", tampered, Webhooks.sign(SECRET, created)),
        Delivery("redelivery of evt_1 (duplicate)", created, Webhooks.sign(SECRET, created)),
        Delivery("order:success, consumer crashes before commit", success, Webhooks.sign(SECRET, success), crashBeforeCommit = true),
        Delivery("redelivery of evt_2 after the crash", success, Webhooks.sign(SECRET, success)),
        Delivery("unknown event order:teleported", unknown, Webhooks.sign(SECRET, unknown)),
        Delivery("no signature header", created, null),
    )
    Receiver(SECRET, 10_000L).use { rx ->
        for (d in batch) {
            val decision = rx.receive(d.body, d.signature)
            val http = if (decision.acknowledges) "2xx" else "non-2xx (retried)"
            val detail = decision.envelope?.let { "${it.id} ${it.event} (${it.kind})" }
                ?: "error ${decision.errorCode}${decision.errorField?.let { f -> " at $f" } ?: ""}"
            println(String.format("  %-48s -> %-9s %-18s %s", d.label, decision.action, http, detail))
            when (decision.action) {
                Action.PROCESS, Action.IGNORE ->
                    if (d.crashBeforeCommit) println("      (crashed before persisting: not committed)")
                    else rx.commit(decision.envelope!!.id)
                Action.DUPLICATE, Action.REJECT -> {}
            }
        }
    }
    try {
        Receiver("", 10L)
    } catch (e: XborderException) {
        println("  a receiver keyed with an empty secret throws ${e.code}")
    }

    println()
    println("== beneficiaries: every issue, at its field")
    fun text(name: String) = File(fixtures, name).readText()
    val drafts = listOf(
        Triple("CO individual (draft-co.json)", text("draft-co.json"), Pair(text("rules-co-individual.json"), "CO" to text("banks-co.json"))),
        Triple("US business (draft-us.json)", text("draft-us.json"), Pair(text("rules-us-business.json"), null)),
    )
    for ((label, draft, extra) in drafts) {
        val (rules, banks) = extra
        val v = Beneficiaries.validate(draft, rules, banks?.first, banks?.second)
        println("  $label: ${if (v.valid) "valid" else "${v.issues.size} issue(s)"}")
        for (issue in v.issues) println(String.format("      %-28s %s", issue.path.ifEmpty { "(root)" }, issue.code))
    }
    println()
    println("== the form for a CO bank account (BeneficiaryValidator.form): path, source, input, label")
    BeneficiaryValidator(text("rules-co-individual.json"), "CO", text("banks-co.json")).use { validator ->
        for (f in validator.form("CO", "bank_account")) {
            val options = if (f.input == FormInput.CHOICE) " " + f.options.joinToString { it.label } else ""
            println(String.format("      %-28s %-7s %-6s %s%s", f.path, f.source, f.input, f.label, options))
        }
    }
    println()
    println("== an IBAN as it is typed (Accounts.checkAccount): display, state, why")
    for (typed in listOf("de89 37", "DE89 3704 0044 0532 0130 00", "DE89 3704 0044 0532 0130 01", "DE89 3704 0044 0532 0130 001")) {
        val c = Accounts.checkAccount(AccountKind.IBAN, typed)
        println(String.format("      %-30s %-10s %s", c.display, c.state, c.reason?.let { "$it: ${c.message}" } ?: ""))
    }
}
