// The catch-up's one call (catchUp) against the simulator's GET /v1/external-events
// (`xborder-simulator api --events FILE --addr-file ADDRFILE`, started here and stopped at the end:
// XBORDER_SIMULATOR, else $XBORDER_ROOT/target/debug/xborder-simulator; jvm/test.sh builds it and
// sets it; without one the test fails, it never passes by skipping): what the webhook path handled
// comes out a duplicate, a failing persist holds the checkpoint, the host's own store, core's waits,
// and API_ERROR once core's tries are spent. The host's GET is HttpURLConnection, as a user writes it.
package dev.xborder

import java.io.File
import java.net.HttpURLConnection
import java.net.URI
import java.nio.file.Files
import java.util.concurrent.TimeUnit
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CatchUpTest {
    private lateinit var sim: Process
    private lateinit var base: String
    private lateinit var events: File
    private val paths = mutableListOf<String>()

    private fun record(n: Int, minute: Int) =
        """{"id":"evt_$n","name":"order:created","aggregateType":"order","aggregateId":"ord_$n",""" +
            """"merchantId":"m_1","payload":{"id":"ord_$n"},"createdAt":"2026-11-27T12:${"%02d".format(minute)}:00.000Z"}"""

    private val records = (1..5).map { record(it, it) }

    private fun write(lines: List<String>) = events.writeText(lines.joinToString("\n", postfix = "\n"))

    @BeforeAll
    fun startSimulator() {
        val root = System.getenv("XBORDER_ROOT") ?: "../.."
        val bin = System.getenv("XBORDER_SIMULATOR") ?: "$root/target/debug/xborder-simulator"
        assertTrue(File(bin).canExecute(), "no simulator at $bin (cargo build -p xborder-simulator; jvm/test.sh does)")
        val dir = Files.createTempDirectory("xborder-catch-up-").toFile()
        events = File(dir, "events.jsonl")
        write(records)
        val addr = File(dir, "addr")
        sim = ProcessBuilder(bin, "api", "--events", events.path, "--addr-file", addr.path)
            .redirectErrorStream(true).redirectOutput(File(dir, "log")).start()
        for (i in 0 until 200) {
            if (addr.isFile && addr.readText().isNotBlank() || !sim.isAlive) break
            Thread.sleep(50)
        }
        assertTrue(addr.isFile && addr.readText().isNotBlank(), "the simulator did not start: " + File(dir, "log").readText())
        base = "http://" + addr.readText().trim()
    }

    @AfterAll
    fun stopSimulator() {
        if (::sim.isInitialized) {
            sim.destroy()
            sim.waitFor(5, TimeUnit.SECONDS)
        }
    }

    @BeforeEach
    fun reset() {
        paths.clear()
        write(records)
    }

    /** The host's HTTP GET, as a user writes it with HttpURLConnection. */
    private fun get(path: String): HttpAnswer {
        paths += path
        val c = URI(base + path).toURL().openConnection() as HttpURLConnection
        try {
            val status = c.responseCode
            val headers = c.headerFields.filterKeys { it != null }.mapValues { it.value.first() }
            val body = (if (status >= 400) c.errorStream else c.inputStream)?.use { it.readBytes().decodeToString() } ?: ""
            return HttpAnswer(status, headers, body)
        } finally {
            c.disconnect()
        }
    }

    /** The webhook the provider sends for record [n] (the same id), signed. */
    private fun delivery(n: Int): Pair<ByteArray, String> {
        val body = """{"id":"evt_$n","event":"order:created","entity":{"id":"ord_$n","type":"order","data":{"id":"ord_$n"}}}"""
            .encodeToByteArray()
        return body to Webhooks.sign(SECRET, body)
    }

    private fun counts(r: CatchUpResult) = listOf(r.found, r.processed, r.skipped, r.rejected, r.failed)

    @Test
    fun whatTheWebhookPathHandledIsADuplicate() {
        val receiver = Receiver(SECRET, window = 0)
        val claims = Claims()
        val persisted = mutableListOf<String>()
        val (body, signature) = delivery(2)
        val answer = handleDelivery(receiver, claims, body, signature) { persisted += it.id }
        assertEquals(200 to true, answer.status to answer.persisted)

        val result = catchUp(::get, receiver, claims, pageSize = 2) { persisted += it.id }
        assertEquals(CatchUp.PATH + "page=0&pageSize=2&sortBy=createdAt&sortOrder=DESC", paths.first())
        assertEquals(3, paths.size, "5 records, 2 a page: $paths")
        assertEquals(listOf(5L, 4L, 1L, 0L, 0L), counts(result), "$result")
        assertEquals(listOf("evt_2", "evt_1", "evt_3", "evt_4", "evt_5"), persisted, "oldest first")
        assertEquals("2026-11-27T12:05:00.000Z", result.checkpoint)
        assertEquals(emptyList<Drift>(), result.drifts)
        assertEquals(emptyList<Throwable>(), result.persistErrors)

        // Again from the checkpoint: the overlap (5 minutes) finds them again, all duplicates now.
        val again = catchUp(::get, receiver, claims, since = result.checkpoint) { persisted += it.id }
        assertEquals(listOf(5L, 0L, 5L, 0L, 0L), counts(again), "$again")
        assertEquals(result.checkpoint, again.checkpoint)

        // A new event while down, with no overlap: evt_5 (at the checkpoint) and evt_6 are found.
        write(records + record(6, 7))
        val later = catchUp(::get, receiver, claims, since = result.checkpoint, overlapMs = 0) { persisted += it.id }
        assertEquals(listOf(2L, 1L, 1L, 0L, 0L), counts(later), "$later")
        assertEquals("2026-11-27T12:07:00.000Z", later.checkpoint)
        assertEquals("evt_6", persisted.last())
    }

    @Test
    fun aFailingPersistHoldsTheCheckpoint() {
        val receiver = Receiver(SECRET, window = 0)
        val claims = Claims()
        val boom = IllegalStateException("database down")
        val result = catchUp(::get, receiver, claims, since = "2026-11-27T11:00:00Z") { if (it.id == "evt_3") throw boom }
        assertEquals(listOf(5L, 4L, 0L, 0L, 1L), counts(result), "$result")
        assertEquals("2026-11-27T12:02:00.000Z", result.checkpoint, "before evt_3")
        assertEquals(1, result.persistErrors.size)
        assertSame(boom, result.persistErrors.single())

        // The next run tries evt_3 again; the others are duplicates; then the checkpoint moves.
        val retry = catchUp(::get, receiver, claims, since = result.checkpoint) {}
        assertEquals(listOf(5L, 1L, 4L, 0L, 0L), counts(retry), "$retry")
        assertEquals("2026-11-27T12:05:00.000Z", retry.checkpoint)
    }

    @Test
    fun theHostsOwnStore() {
        val map = HashMap<String, String>()
        val store = object : ClaimStore {
            override fun load(id: String, time: StoreTime): String? = synchronized(map) { map[id] }
            override fun compareAndSet(id: String, expected: String?, new: String?, time: StoreTime): Boolean = synchronized(map) {
                if (map[id] != expected) return false
                if (new == null) map.remove(id) else map[id] = new
                true
            }
        }
        val receiver = Receiver(SECRET, window = 0)
        val (body, signature) = delivery(1)
        assertTrue(handleDelivery(receiver, Claims(store), body, signature) {}.persisted)
        // A new Claims over the same store: the claims live in the store.
        val result = catchUp(::get, receiver, Claims.withStore(store), pageSize = 3, token = "worker-7") {}
        assertEquals(listOf(5L, 4L, 1L, 0L, 0L), counts(result), "$result")
        assertTrue(map.keys.containsAll((1..5).map { "evt_$it" }), "${map.keys}")
    }

    @Test
    fun waitsAndGivesUpAsCoreSays() {
        val receiver = Receiver(SECRET, window = 0)
        val answers = ArrayDeque(listOf(
            HttpAnswer(503, mapOf("Retry-After" to "2"), ""),
            HttpAnswer(429, """{"error": {"CODE": "TOO_MANY_REQUESTS", "DETAILS": {"retryAfterMs": 1500}}}"""),
        ))
        val slept = mutableListOf<Long>()
        val result = catchUp({ answers.removeFirstOrNull() ?: get(it) }, receiver, Claims(), sleep = { slept += it }) {}
        assertEquals(listOf(2000L, 1500L), slept)
        assertEquals(5L, result.processed)

        // Always 503: four waits (core's 1 s), then API_ERROR with the API's answer; no event handled.
        slept.clear()
        var gets = 0
        val e = assertThrows(XborderException::class.java) {
            catchUp({ gets++; HttpAnswer(503, mapOf("retry-after" to "x"), "<html/>") }, receiver, Claims(), sleep = { slept += it }) {
                throw AssertionError("nothing to persist")
            }
        }
        assertEquals("API_ERROR", e.code)
        assertEquals(5, gets, "five tries")
        assertEquals(listOf(1000L, 1000L, 1000L, 1000L), slept)
        val api = e.api!!
        assertEquals(503, api.status)
        assertEquals(Retry.AFTER, api.retry)
        assertNull(api.afterMs)

        // A refusal is not retried.
        slept.clear()
        val refused = assertThrows(XborderException::class.java) {
            catchUp({ HttpAnswer(401, """{"error": {"CODE": "UNAUTHORIZED", "MESSAGE": "bad key"}, "requestId": "req_7"}""") },
                receiver, Claims(), sleep = { slept += it }) {}
        }
        assertEquals("API_ERROR", refused.code)
        assertEquals(listOf(401, "UNAUTHORIZED", "bad key", RequestId.Text("req_7"), Retry.NO),
            refused.api!!.let { listOf(it.status, it.code, it.message, it.requestId, it.retry) })
        assertEquals(emptyList<Long>(), slept)

        // A page that is not the list: MALFORMED_RESPONSE.
        val malformed = assertThrows(XborderException::class.java) {
            catchUp({ HttpAnswer(200, """{"error": "x"}""") }, receiver, Claims()) {}
        }
        assertEquals("MALFORMED_RESPONSE", malformed.code)
        // Core's own refusals of the inputs.
        assertEquals("INVALID_OVERLAP", assertThrows(XborderException::class.java) {
            catchUp({ throw AssertionError("no GET") }, receiver, Claims(), overlapMs = -1) {}
        }.code)
        assertEquals("INVALID_SINCE", assertThrows(XborderException::class.java) {
            catchUp({ throw AssertionError("no GET") }, receiver, Claims(), since = "27/11/2026") {}
        }.code)
    }

    /** The in-memory provider of a Java-style call: one page, no server. */
    @Test
    fun onePageFromMemory() {
        val page = """{"data":[${records.reversed().joinToString(",")}],"total":5,"page":0,"pageSize":100}"""
        val seen = mutableListOf<String>()
        val result = catchUp({ seen += it; HttpAnswer(200, page) }, Receiver(SECRET, window = 0), Claims()) {}
        assertEquals(listOf(CatchUp.PATH + "page=0&pageSize=100&sortBy=createdAt&sortOrder=DESC"), seen)
        assertEquals(listOf(5L, 5L, 0L, 0L, 0L), counts(result))
        assertEquals("2026-11-27T12:05:00.000Z", result.checkpoint)
    }

    private companion object {
        const val SECRET = "whsec_catch_up_test"
    }
}
