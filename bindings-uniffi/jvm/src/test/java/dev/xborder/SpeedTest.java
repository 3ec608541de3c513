// The speed measure (src/main/kotlin/dev/xborder/internal/Speed.kt): the hot calls (classify,
// verify, decodeEnvelope, Receiver.receive and commit) answer exactly as the generated wrappers
// do, errors (codes, fields, details) included; re-entrant calls (Rust -> a Java ClaimStore ->
// Rust) and several threads go through its pooled call statuses; and it is really the path taken
// (it allocates far less per call). `Speed.on` is what -Dxborder.speed=false turns off.
package dev.xborder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.xborder.internal.Speed;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SpeedTest {
    static final String SECRET = "whsec_speed";

    static byte[] body(String id, String event, String data) {
        return ("{\"id\":\"" + id + "\",\"event\":\"" + event + "\",\"entity\":{\"id\":\"ord_1\",\"type\":\"order\",\"data\":" + data + "}}")
            .getBytes(StandardCharsets.UTF_8);
    }

    static final byte[] BODY = body("evt_s1", "order:created", "{\"amount\":\"10.00\",\"note\":\"caf\u00e9 \u2713\"}");
    static final byte[] BIG = body("evt_big", "order:funds_received", "{\"ledger\":\"" + "x".repeat(20_000) + "\"}");

    /** [sig] with its last hex digit changed: well formed, wrong. */
    static String tampered(String sig) {
        return sig.substring(0, sig.length() - 1) + (sig.endsWith("0") ? "1" : "0");
    }

    @AfterEach
    void on() {
        Speed.on = true;
    }

    /** What a call gives: its value, or its exception's class, code, field, detail and message. */
    static Object outcome(Callable<?> call) {
        try {
            return "value " + call.call();
        } catch (XborderException e) {
            // A store's exception comes with its stack trace, whose line numbers differ per run: its first line.
            return List.of("XborderException", e.getCode(), String.valueOf(e.getField()), String.valueOf(e.getDetail()).split("\n")[0],
                e.getMessage().split("\n")[0], e.getRejected().toString());
        } catch (Throwable e) {
            return List.of(e.getClass().getName(), String.valueOf(e.getMessage()));
        }
    }

    /** The outcome with the speed measure on, checked equal to the generated wrappers' (off). */
    static Object both(Callable<?> call) {
        Speed.on = false;
        Object off = outcome(call);
        Speed.on = true;
        Object on = outcome(call);
        assertEquals(off, on, "the speed measure answers differently");
        return on;
    }

    static String code(Object outcome) {
        return outcome instanceof List<?> l && l.get(0).equals("XborderException") ? (String) l.get(1) : "no XborderException: " + outcome;
    }

    @Test
    void isOnByDefault() {
        assertTrue(Speed.on, "-Dxborder.speed is unset in the tests: the speed measure must be on");
        assertEquals("0.32.2", Speed.UNIFFI_VERSION);
    }

    @Test
    void classifyAsGenerated() {
        assertEquals("value EventClassification(kind=live, entity=order, action=created)", both(() -> Events.classify("order:created")));
        assertEquals("value EventClassification(kind=planned, entity=order, action=refunded)", both(() -> Events.classify("order:refunded")));
        assertEquals("value EventClassification(kind=wildcard, entity=order, action=*)", both(() -> Events.classify("order:*")));
        assertEquals("value EventClassification(kind=unknown, entity=not, action=an_event)", both(() -> Events.classify("not:an_event")));
        assertEquals("value EventClassification(kind=invalid, entity=null, action=null)", both(() -> Events.classify("")));
        assertEquals("value EventClassification(kind=invalid, entity=null, action=null)", both(() -> Events.classify("caf\u00e9 \u2713")));
        // A lone surrogate: uniffi's UTF-8 encoder refuses it, on both paths.
        assertEquals(List.of("java.nio.charset.MalformedInputException", "Input length = 1"), both(() -> Events.classify("order:\uD800")));
    }

    @Test
    void verifyAndDecodeAsGenerated() {
        String good = Webhooks.sign(SECRET, BODY);
        String bigSig = Webhooks.sign(SECRET, BIG);
        assertEquals("value kotlin.Unit", both(() -> { Webhooks.verify(SECRET, BODY, good); return kotlin.Unit.INSTANCE; }));
        assertEquals("value kotlin.Unit", both(() -> { Webhooks.verify(SECRET, BIG, bigSig); return kotlin.Unit.INSTANCE; }));
        assertEquals("value kotlin.Unit", both(() -> { Webhooks.verify(SECRET, BODY, " " + good.toUpperCase() + " "); return kotlin.Unit.INSTANCE; }));
        Map<String, Callable<?>> errors = new java.util.LinkedHashMap<>();
        errors.put("SIGNATURE_MISMATCH", () -> { Webhooks.verify(SECRET, BIG, good); return null; });
        errors.put("MISSING_SIGNATURE", () -> { Webhooks.verify(SECRET, BODY, null); return null; });
        errors.put("MALFORMED_SIGNATURE", () -> { Webhooks.verify(SECRET, BODY, "zz"); return null; });
        errors.put("EMPTY_SECRET", () -> { Webhooks.verify("", BODY, good); return null; });
        for (Map.Entry<String, Callable<?>> e : errors.entrySet()) {
            Object got = both(e.getValue());
            assertEquals(e.getKey(), code(got), got.toString());
        }
        // A lone surrogate in the last argument: the arguments lowered before it are freed, the
        // exception is uniffi's.
        assertEquals(List.of("java.nio.charset.MalformedInputException", "Input length = 1"),
            both(() -> { Webhooks.verify(SECRET, BODY, "\uDC00"); return null; }));

        assertEquals("value Envelope(id=evt_s1, event=order:created, kind=live, entityId=ord_1, entityType=order, "
            + "dataJson={\"amount\":\"10.00\",\"note\":\"caf\u00e9 \u2713\"})", both(() -> Webhooks.decodeEnvelope(BODY)));
        Object big = both(() -> Webhooks.decodeEnvelope(BIG, DecodeLimits.defaults()));
        assertTrue(big.toString().startsWith("value Envelope(id=evt_big, event=order:funds_received,") && big.toString().length() > 20_000);
        Object missing = both(() -> Webhooks.decodeEnvelope("{\"event\":\"order:created\"}".getBytes(StandardCharsets.UTF_8)));
        assertEquals("MISSING_FIELD", code(missing));
        assertEquals("id", ((List<?>) missing).get(2));
        assertEquals("BODY_TOO_LARGE", code(both(() -> Webhooks.decodeEnvelope(BODY, new DecodeLimits(16, 64)))));
        assertEquals("NESTING_TOO_DEEP", code(both(() -> Webhooks.decodeEnvelope(body("e", "order:created", "[[[[[1]]]]]"), new DecodeLimits(1 << 20, 3)))));
        assertEquals("MALFORMED_JSON", code(both(() -> Webhooks.decodeEnvelope("{".getBytes(StandardCharsets.UTF_8)))));
    }

    @Test
    void receiveAndCommitAsGenerated() {
        String good = Webhooks.sign(SECRET, BODY);
        // One receiver per path, fed the same deliveries: process, reject (each cause), commit, duplicate.
        List<Object> seen = new ArrayList<>();
        for (boolean on : new boolean[] {false, true}) {
            Speed.on = on;
            List<Object> got = new ArrayList<>();
            Receiver rx = new Receiver(SECRET, 100L, new DecodeLimits(10_000, 8), null);
            got.add(outcome(() -> rx.receive(BODY, good)));
            got.add(outcome(() -> rx.receive(BODY, null)));
            got.add(outcome(() -> rx.receive(BODY, tampered(good))));
            got.add(outcome(() -> rx.receive(BIG, Webhooks.sign(SECRET, BIG))));
            got.add(outcome(() -> rx.receive("not json".getBytes(StandardCharsets.UTF_8), Webhooks.sign(SECRET, "not json".getBytes(StandardCharsets.UTF_8)))));
            got.add(outcome(() -> { rx.commit("evt_s1"); return "committed"; }));
            got.add(outcome(() -> rx.receive(BODY, good)));
            got.add(outcome(() -> rx.receive(BODY, "\uD800")));
            rx.close();
            got.add(outcome(() -> rx.receive(BODY, good)));
            got.add(outcome(() -> { rx.commit("evt_s2"); return "committed"; }));
            seen.add(got);
        }
        assertEquals(seen.get(0), seen.get(1), "the speed measure answers differently");
        List<?> got = (List<?>) seen.get(1);
        assertTrue(got.get(0).toString().startsWith("value Decision(action=process, acknowledges=true, errorCode=null"), got.get(0).toString());
        assertTrue(got.get(1).toString().contains("action=reject, acknowledges=false, errorCode=MISSING_SIGNATURE"), got.get(1).toString());
        assertTrue(got.get(2).toString().contains("errorCode=SIGNATURE_MISMATCH"), got.get(2).toString());
        assertTrue(got.get(3).toString().contains("errorCode=BODY_TOO_LARGE") && got.get(3).toString().contains("status=413"), got.get(3).toString());
        assertTrue(got.get(4).toString().contains("errorCode=MALFORMED_JSON"), got.get(4).toString());
        assertEquals("value committed", got.get(5));
        assertTrue(got.get(6).toString().startsWith("value Decision(action=duplicate, acknowledges=true"), got.get(6).toString());
        assertEquals(List.of("java.nio.charset.MalformedInputException", "Input length = 1"), got.get(7));
        assertEquals(List.of("java.lang.IllegalStateException", "Receiver object has already been destroyed"), got.get(8));
        assertEquals(got.get(8), got.get(9));
    }

    /** A store written in Java that calls the library from inside Rust's calls to it. */
    static final class ReentrantStore implements ClaimStore {
        final Map<String, String> map = new HashMap<>();
        final List<String> inner = new ArrayList<>();
        final Receiver rx = new Receiver(SECRET);
        final String good = Webhooks.sign(SECRET, BODY);
        int loads;

        @Override public synchronized String load(String id, StoreTime time) {
            inner.add(Events.classify(id.endsWith("0") ? "order:created" : "nope:nope").getKind().toString());
            inner.add(code(outcome(() -> { Webhooks.verify(SECRET, BODY, tampered(good)); return null; })));
            inner.add(rx.receive(BODY, good).getAction().toString());
            if (++loads % 4 == 0) throw new IllegalStateException("store down");
            return map.get(id);
        }

        @Override public synchronized boolean compareAndSet(String id, String expected, String next, StoreTime time) {
            Webhooks.verify(SECRET, BODY, good);
            inner.add(code(outcome(() -> Webhooks.decodeEnvelope("{}".getBytes(StandardCharsets.UTF_8)))));
            if (!Objects.equals(map.get(id), expected)) return false;
            if (next == null) map.remove(id); else map.put(id, next);
            return true;
        }
    }

    static List<Object> reentrantRun() {
        ReentrantStore store = new ReentrantStore();
        Claims claims = new Claims(store);
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            final int n = i;
            out.add(outcome(() -> claims.step("claim", "evt_" + (n % 6), "t" + n, 1_000 + n)));
            if (n % 5 == 0) out.add(outcome(() -> claims.step("complete", "evt_" + (n % 6), "t" + n, 1_000 + n)));
        }
        out.add(store.inner);
        return out;
    }

    @Test
    void reentrantStoreCalls() {
        Speed.on = false;
        List<Object> off = reentrantRun();
        Speed.on = true;
        List<Object> on = reentrantRun();
        assertEquals(off, on, "the speed measure answers differently");
        assertTrue(on.contains("value claimed") && on.contains("value in_progress") && on.contains("value completed"), on.toString());
        assertTrue(on.stream().anyMatch(o -> code(o).equals("STORE_UNAVAILABLE")), on.toString());
        List<?> inner = (List<?>) on.get(on.size() - 1);
        assertTrue(inner.containsAll(List.of("live", "unknown", "SIGNATURE_MISMATCH", "process", "MISSING_FIELD")), inner.toString());
    }

    /** One thread's work: each call, with its outcome. */
    static List<Object> work(int seed, Receiver rx, String good) {
        List<Object> out = new ArrayList<>();
        for (int k = 0; k < 400; k++) {
            final int i = k;
            switch ((i + seed) % 5) {
                case 0 -> out.add(outcome(() -> Events.classify(i % 2 == 0 ? "order:created" : "x:" + (i % 7))));
                case 1 -> out.add(outcome(() -> { Webhooks.verify(SECRET, BODY, i % 3 == 0 ? good : tampered(good)); return "ok"; }));
                case 2 -> out.add(outcome(() -> rx.receive(BODY, i % 4 == 0 ? null : good).getAction()));
                case 3 -> out.add(outcome(() -> Webhooks.decodeEnvelope(i % 2 == 0 ? BODY : "[]".getBytes(StandardCharsets.UTF_8)).getId()));
                default -> out.add(outcome(() -> { Webhooks.verify(SECRET, BIG, null); return "ok"; }));
            }
        }
        return out;
    }

    @Test
    void severalThreads() throws Exception {
        String good = Webhooks.sign(SECRET, BODY);
        int threads = 4;
        Speed.on = false;
        List<List<Object>> want = new ArrayList<>();
        try (Receiver rx = new Receiver(SECRET)) {
            for (int t = 0; t < threads; t++) want.add(work(t, rx, good));
        }
        Speed.on = true;
        List<List<Object>> got = Collections.synchronizedList(new ArrayList<>(Collections.nCopies(threads, null)));
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        try (Receiver rx = new Receiver(SECRET)) {
            List<Thread> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                final int seed = t;
                Thread th = new Thread(() -> {
                    try {
                        got.set(seed, work(seed, rx, good));
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                running.add(th);
                th.start();
            }
            for (Thread th : running) th.join();
        }
        assertEquals(List.of(), failures);
        for (int t = 0; t < threads; t++) assertEquals(want.get(t), got.get(t), "thread " + t);
        List<Object> first = got.get(0);
        assertTrue(first.contains("value ok") && first.contains("value process") && first.contains("value evt_s1"), first.toString());
        assertTrue(first.stream().anyMatch(o -> code(o).equals("SIGNATURE_MISMATCH")), first.toString());
        assertTrue(first.stream().anyMatch(o -> code(o).equals("MISSING_SIGNATURE")), first.toString());
    }

    /** Bytes this thread allocates for [n] classify calls. */
    static long allocated(int n) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        long before = mx.getThreadAllocatedBytes(id);
        for (int i = 0; i < n; i++) Events.classify("order:funds_received");
        return mx.getThreadAllocatedBytes(id) - before;
    }

    @Test
    void itIsThePathTaken() {
        // A new JNA status per crossing (three per classify) against pooled ones: the allocations
        // per call tell the paths apart.
        for (boolean on : new boolean[] {false, true, false, true}) {
            Speed.on = on;
            allocated(2_000); // warm-up
        }
        Speed.on = false;
        long off = allocated(5_000) / 5_000;
        Speed.on = true;
        long on = allocated(5_000) / 5_000;
        assertNotEquals(0, on);
        assertTrue(on * 4 < off * 3, "per classify call: " + on + " B with the speed measure, " + off + " B without");
        System.out.println("speed measure: classify allocates " + on + " B per call (" + off + " B without)");
    }
}
