// The uniffi Kotlin binding against javax.crypto.Mac (and Gson, on the classpath already) on the
// bytes of tests/bench/fixtures/, in one JVM, after warm-up. Each comparison runs in alternating
// batches (the order flips every round); the figure is the median time per call and the ratio
// the median of the per-round ratios.
//
// Run by tests/bench/run.sh: java -cp BENCH.jar:$XBORDER_KOTLIN_CLASSPATH BenchKt FIXTURES OUT.json
import dev.xborder.*
import java.io.File
import java.security.MessageDigest
import javax.crypto.Mac
import javax.crypto.spec.SecretKeySpec

val ROUNDS = (System.getenv("XBORDER_BENCH_ROUNDS") ?: "15").toInt()
val BATCH_MS = (System.getenv("XBORDER_BENCH_BATCH_MS") ?: "20").toLong()
val WARMUP_MS = (System.getenv("XBORDER_BENCH_WARMUP_MS") ?: "1000").toLong()
var sink = 0

fun hexToBytes(s: String): ByteArray {
    val t = s.trim()
    require(t.length % 2 == 0)
    return ByteArray(t.length / 2) { i -> ((Character.digit(t[2 * i], 16) shl 4) or Character.digit(t[2 * i + 1], 16)).toByte() }
}

// What a JVM integrator writes: a Mac per call (Mac is not thread-safe), a constant-time compare.
fun javaxVerify(secret: ByteArray, body: ByteArray, header: String): Boolean {
    val mac = Mac.getInstance("HmacSHA256")
    mac.init(SecretKeySpec(secret, "HmacSHA256"))
    return MessageDigest.isEqual(mac.doFinal(body), hexToBytes(header))
}

fun median(xs: List<Double>): Double {
    val s = xs.sorted()
    val m = s.size / 2
    return if (s.size % 2 == 1) s[m] else (s[m - 1] + s[m]) / 2
}

fun timeBatch(f: () -> Any?, iters: Long): Double {
    val t0 = System.nanoTime()
    for (i in 0 until iters) if (f() === sink) sink++
    return (System.nanoTime() - t0).toDouble() / iters
}

fun calibrate(f: () -> Any?): Long {
    var iters = 1L
    while (true) {
        val t0 = System.nanoTime()
        for (i in 0 until iters) f()
        val ms = (System.nanoTime() - t0) / 1e6
        if (ms >= BATCH_MS / 4.0 || iters > 10_000_000) return maxOf(1L, (iters * BATCH_MS / maxOf(ms, 0.001)).toLong())
        iters *= 4
    }
}

fun json(s: String) = "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\""

class Result(val name: String, val ns: Map<String, Double>, val ratio: Map<String, Double>) {
    fun toJson(): String =
        "{\"name\":${json(name)},\"ns\":{" + ns.entries.joinToString(",") { "${json(it.key)}:${it.value}" } +
            "},\"ratio\":{" + ratio.entries.joinToString(",") { "${json(it.key)}:${it.value}" } + "}}"
}

/** Alternating batches; the first function is xborder's. Warm-up: WARMUP_MS per function. */
fun compare(name: String, fns: LinkedHashMap<String, () -> Any?>): Result {
    for ((_, f) in fns) {
        val end = System.nanoTime() + WARMUP_MS * 1_000_000L
        while (System.nanoTime() < end) f()
    }
    val iters = fns.mapValues { calibrate(it.value) }
    val times = fns.keys.associateWith { mutableListOf<Double>() }
    val names = fns.keys.toList()
    for (r in 0 until ROUNDS) {
        for (n in if (r % 2 == 1) names.reversed() else names) times.getValue(n).add(timeBatch(fns.getValue(n), iters.getValue(n)))
    }
    val ns = names.associateWith { median(times.getValue(it)) }
    val first = names.first()
    val ratio = names.drop(1).associate { n ->
        "$first/$n" to median(times.getValue(first).indices.map { i -> times.getValue(first)[i] / times.getValue(n)[i] })
    }
    println("kotlin: $name: " + ns.entries.joinToString(", ") { "%s %.2f µs".format(it.key, it.value / 1000) } +
        "; " + ratio.entries.joinToString(", ") { "%s %.2f×".format(it.key, it.value) })
    return Result(name, ns, ratio)
}

fun main(args: Array<String>) {
    val dir = File(args[0])
    val out = File(args[1])
    val secret = File(dir, "secret.txt").readText()
    val key = secret.toByteArray()
    val keyed = Mac.getInstance("HmacSHA256").apply { init(SecretKeySpec(key, "HmacSHA256")) }
    val results = mutableListOf<Result>()
    val rx = Receiver(secret, 20_000uL)
    val seen = HashSet<String>()
    for (i in 0 until 10_000) {
        val id = "evt_" + i.toString().padStart(26, '0')
        rx.commit(id)
        seen.add(id)
    }
    for (size in listOf("1k7", "20k")) {
        val body = File(dir, "envelope-$size.json").readBytes()
        val sig = File(dir, "envelope-$size.sig").readText()
        verify(secret, body, sig)
        check(javaxVerify(key, body, sig))
        check(rx.receive(body, sig).action == Action.PROCESS)
        results += compare("verify/$size", linkedMapOf(
            "xborder" to { verify(secret, body, sig) },
            "javax.crypto" to { javaxVerify(key, body, sig) },
            "floor" to { keyed.doFinal(body) },
        ))
        results += compare("decode/$size", linkedMapOf(
            "xborder" to { decodeEnvelope(body) },
            "gson" to { com.google.gson.JsonParser.parseString(String(body, Charsets.UTF_8)) },
        ))
        // Verify, decode, classify and dedupe in one call, against the HMAC check alone and
        // against the HMAC check plus a Gson parse and a HashSet lookup.
        results += compare("receive/$size", linkedMapOf(
            "xborder" to { rx.receive(body, sig) },
            "javax.crypto" to { javaxVerify(key, body, sig) },
            "naive" to {
                check(javaxVerify(key, body, sig))
                val o = com.google.gson.JsonParser.parseString(String(body, Charsets.UTF_8)).asJsonObject
                seen.contains(o.get("id").asString)
            },
            "floor" to { keyed.doFinal(body) },
        ))
    }
    // One foreign call with almost no work: what crossing JNA and uniffi's buffers costs.
    val live = HashSet(listOf("order:funds_received", "order:created", "order:success"))
    results += compare("classify/order_funds_received", linkedMapOf(
        "xborder" to { classifyEvent("order:funds_received") },
        "naive" to { live.contains("order:funds_received") },
    ))
    File(out.path).writeText(
        "{\"java\":${json(System.getProperty("java.vm.name") + " " + System.getProperty("java.version"))}," +
            "\"rounds\":$ROUNDS,\"batchMs\":$BATCH_MS,\"results\":[" + results.joinToString(",") { it.toJson() } + "],\"sink\":$sink}\n"
    )
}
