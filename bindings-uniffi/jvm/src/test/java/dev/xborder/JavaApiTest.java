// The binding from Java: every entry point called with plain Java types (long, int, List,
// byte[]), no mangled name, no kotlin.ULong. Free functions are static methods of XborderKt;
// what takes or returns an unsigned number goes through XborderJava (conversion only).
package dev.xborder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JavaApiTest {
    static final String SECRET = "whsec_test";
    static final byte[] BODY =
        "{\"id\":\"evt_1\",\"event\":\"order:created\",\"entity\":{\"id\":\"ord_1\",\"type\":\"order\",\"data\":{}}}"
            .getBytes(StandardCharsets.UTF_8);

    @Test
    void libraryComesFromTheJar() {
        // Surefire sets no jna.library.path: JNA must have found the library in the classes.
        assertNull(System.getProperty("jna.library.path"));
        assertTrue(JavaApiTest.class.getClassLoader().getResource("linux-x86-64/libxborder_ffi.so") != null);
    }

    @Test
    void signVerifyReceive() throws Exception {
        String header = XborderKt.sign(SECRET, BODY);
        assertEquals(64, header.length());
        XborderKt.verify(SECRET, BODY, header);
        XborderException bad = assertThrows(XborderException.class, () -> XborderKt.verify(SECRET, BODY, "00" + header.substring(2)));
        assertEquals("SIGNATURE_MISMATCH", bad.errorCode());
        XborderKt.verifyWithSecrets(List.of("whsec_old", SECRET), BODY, header);

        Receiver rx = XborderJava.receiver(SECRET);
        Decision d = rx.receive(BODY, header);
        assertEquals(Action.PROCESS, d.getAction());
        assertTrue(d.getAcknowledges());
        assertEquals("evt_1", d.getEnvelope().getId());
        assertEquals(EventKind.LIVE, d.getEnvelope().getKind());
        rx.commit(d.getEnvelope().getId());
        assertEquals(Action.DUPLICATE, rx.receive(BODY, header).getAction());

        Decision tampered = rx.receive("{\"id\":\"evt_2\"}".getBytes(StandardCharsets.UTF_8), header);
        assertEquals(Action.REJECT, tampered.getAction());
        assertEquals("SIGNATURE_MISMATCH", tampered.getErrorCode());
        assertFalse(tampered.getAcknowledges());

        // Window, limits and rotation, with longs.
        DecodeLimits limits = XborderJava.decodeLimits(16, 64);
        assertEquals(16, XborderJava.maxBodyBytes(limits));
        assertEquals(64, XborderJava.maxDepth(limits));
        Decision tooBig = XborderJava.receiver(SECRET, 100, limits, null).receive(BODY, header);
        assertEquals(Action.REJECT, tooBig.getAction());
        Receiver rotating = XborderJava.receiverWithSecrets(List.of("whsec_old", SECRET), 10, null, null);
        assertEquals(Action.PROCESS, rotating.receive(BODY, header).getAction());
        assertEquals(Action.PROCESS, XborderJava.receiverWithSecrets(List.of(SECRET)).receive(BODY, header).getAction());
        assertThrows(IllegalArgumentException.class, () -> XborderJava.receiver(SECRET, -1, null, null));

        Envelope env = XborderKt.decodeEnvelope(BODY, XborderKt.defaultDecodeLimits());
        assertEquals("order:created", env.getEvent());
    }

    @Test
    void catalogAndRegistration() throws Exception {
        RegistrationCheck ok = XborderJava.checkRegistration(List.of("order:created"));
        assertTrue(ok.getOk());
        RegistrationCheck full = XborderJava.checkRegistration(List.of("order:created"), 1_000_000);
        assertFalse(full.getOk());
        assertEquals("WEBHOOK_LIMIT_REACHED", full.getCode());
        RegistrationCheck unknown = XborderJava.checkRegistration(List.of("order:rejected"));
        assertFalse(unknown.getOk());
        assertEquals("order:rejected", unknown.getRejected().get(0).getEvent());

        Catalog catalog = new Catalog();
        catalog.addLive("order:rejected");
        assertEquals(EventKind.LIVE, catalog.classify("order:rejected").getKind());
        assertTrue(catalog.isLive("order:rejected"));
        assertTrue(XborderJava.checkRegistration(catalog, List.of("order:rejected", "order:*")).getOk());
        assertTrue(XborderJava.checkRegistration(catalog, List.of("order:rejected"), 0).getOk());
        assertTrue(catalog.matches(List.of("order:*"), "order:rejected"));
        String body = XborderJava.createWebhookBody(catalog, List.of("order:rejected"), "https://example.com/hook");
        assertTrue(body.contains("order:rejected"), body);
        assertTrue(XborderJava.createWebhookBody(List.of("order:created"), "https://example.com/hook").contains("order:created"));
        XborderException.Catalog bad = assertThrows(XborderException.Catalog.class, () -> catalog.addLive("not a name"));
        assertEquals("INVALID_EVENT_NAME", bad.getCode());

        byte[] rejected = "{\"id\":\"evt_9\",\"event\":\"order:rejected\",\"entity\":{\"id\":\"o\",\"type\":\"order\",\"data\":{}}}"
            .getBytes(StandardCharsets.UTF_8);
        String sig = XborderKt.sign(SECRET, rejected);
        assertEquals(Action.IGNORE, XborderJava.receiver(SECRET).receive(rejected, sig).getAction());
        assertEquals(Action.PROCESS, XborderJava.receiver(SECRET, catalog).receive(rejected, sig).getAction());
    }

    @Test
    void beneficiary() throws Exception {
        BeneficiaryValidation v = XborderKt.validateBeneficiary("{}", null, null, null);
        assertFalse(v.getValid());
        assertFalse(v.getIssues().isEmpty());
        assertTrue(v.getIssues().stream().anyMatch(i -> i.getCode() == IssueCode.REQUIRED), v.toString());
        List<RequiredField> fields = XborderKt.requiredFields(null, "bank_account", "US");
        assertTrue(fields.stream().anyMatch(f -> f.getPath().equals("paymentInfo.routingNumber")), fields.toString());
        XborderException notJson = assertThrows(XborderException.class, () -> XborderKt.validateBeneficiary("{", null, null, null));
        assertEquals("MALFORMED_JSON", notJson.errorCode());
    }

    // The documents as the server sends them, as response text.
    static final String RULES_CO = """
        {"data": {"country": "CO", "ownerType": "individual", "rules": {
            "requiredFields": [{"field": "firstName", "description": "First name"}],
            "paymentTypes": [{"type": "bank_account", "requiredFields": [{"field": "accountNumber"}]}]}},
         "requestId": "req_1"}""";
    static final String BANKS_CO = "{\"data\": [{\"id\": \"bank_co_001\", \"name\": \"Banco Uno\"}], \"requestId\": \"req_2\"}";

    static String issues(BeneficiaryValidation v) {
        return v.getIssues().stream().map(i -> i.getPath() + " " + i.getCode()).sorted().collect(java.util.stream.Collectors.joining(", "));
    }

    @Test
    void beneficiaryDocumentsAndIssues() throws Exception {
        String draft = "{\"ownerType\":\"individual\",\"country\":\"CO\",\"paymentType\":\"bank_account\","
            + "\"paymentInfo\":{\"bankId\":\"bank_co_001\",\"bic\":\"DEUTZZFF\"}}";
        BeneficiaryValidation v = XborderKt.validateBeneficiary(draft, RULES_CO, "CO", BANKS_CO);
        assertEquals("firstName REQUIRED, paymentInfo.accountNumber REQUIRED, paymentInfo.bic INVALID_BIC", issues(v));
        Issue first = v.getIssues().stream().filter(i -> i.getPath().equals("firstName")).findFirst().orElseThrow();
        assertEquals("First name", first.getLabel());
        assertFalse(first.getMessage().isBlank());
        Issue account = v.getIssues().stream().filter(i -> i.getPath().equals("paymentInfo.accountNumber")).findFirst().orElseThrow();
        assertNull(account.getLabel(), "a field the rules do not describe has no label");
        Issue bic = v.getIssues().stream().filter(i -> i.getCode() == IssueCode.INVALID_BIC).findFirst().orElseThrow();
        assertEquals("INVALID_BIC", bic.getCode().toString());
        assertFalse(bic.getMessage().isBlank());

        // One validator for many drafts, from Java: every argument passed, null for none.
        BeneficiaryValidator validator = new BeneficiaryValidator(RULES_CO, "CO", BANKS_CO);
        assertEquals(v, validator.validate(draft));
        assertEquals("MALFORMED_JSON", assertThrows(XborderException.class, () -> validator.validate("{")).errorCode());
        validator.close();
        // Unreadable documents: issues at "", not exceptions.
        assertEquals(" BANKS_UNREADABLE, paymentInfo.bic INVALID_BIC", issues(new BeneficiaryValidator(null, "CO", "[]").validate(draft)));
        BeneficiaryValidation notJson = XborderKt.validateBeneficiary(draft, "{\"data\": {", null, null);
        assertEquals(" RULES_UNREADABLE, paymentInfo.bic INVALID_BIC", issues(notJson));
        assertTrue(notJson.getIssues().get(0).getMessage().startsWith("the rules document"), notJson.toString());
        // requiredFields answers with fields or throws: XborderException.Document.
        XborderException.Document unreadable = assertThrows(XborderException.Document.class,
            () -> XborderKt.requiredFields("[]", "bank_account", "CO"));
        assertEquals("RULES_UNREADABLE", unreadable.getCode());
        assertEquals("RULES_UNREADABLE", unreadable.errorCode());
        assertTrue(unreadable.getDetail().contains("rules document"), unreadable.getDetail());
    }

    @Test
    void pagination() throws Exception {
        assertEquals("page=0&pageSize=10&sortBy=createdAt&sortOrder=DESC&status=success",
            XborderKt.listQuery("{\"sortOrder\":\"desc\",\"filters\":{\"status\":\"success\"}}"));
        XborderException.Pagination e = assertThrows(XborderException.Pagination.class,
            () -> XborderKt.listQuery("{\"status\":\"success\"}"));
        assertEquals("UNKNOWN_PARAMETER", e.getCode());
        assertEquals("status", e.getField());

        // Page 1 of 25 records, 10 a page: records 11 to 20, as the data array holds 10.
        String ten = String.join(",", java.util.Collections.nCopies(10, "{}"));
        PageInfo info = XborderKt.pageInfo("{\"data\":[" + ten + "],\"total\":25,\"page\":1,\"pageSize\":10}",
            XborderJava.pageRequest(1L, 10L));
        assertEquals(25, XborderJava.total(info));
        assertEquals(1, XborderJava.page(info));
        assertEquals(10, XborderJava.pageSize(info));
        assertEquals(3, XborderJava.totalPages(info));
        assertEquals(11, XborderJava.firstItem(info));
        assertEquals(20, XborderJava.lastItem(info));
        assertEquals(2L, XborderJava.nextPage(info));
        assertTrue(info.getHasNext());
        assertTrue(info.getHasPrevious());

        PageWalker walker = new PageWalker("{\"pageSize\":2}");
        List<String> records = new ArrayList<>();
        String[] pages = {
            "{\"data\":[{\"id\":\"a\"},{\"id\":\"b\"}],\"total\":3,\"page\":0,\"pageSize\":2}",
            "{\"data\":[{\"id\":\"b\"},{\"id\":\"c\"}],\"total\":3,\"page\":1,\"pageSize\":2}",
        };
        int n = 0;
        String query;
        List<Drift> drifts = new ArrayList<>();
        while ((query = walker.nextQuery()) != null) {
            assertTrue(query.startsWith("page=" + n + "&pageSize=2"), query);
            WalkStep step = walker.feed(pages[n++]);
            records.addAll(step.getRecordsJson());
            drifts.addAll(step.getDrifts());
        }
        assertTrue(walker.isDone());
        assertEquals(List.of("{\"id\":\"a\"}", "{\"id\":\"b\"}", "{\"id\":\"c\"}"), records);
        assertEquals(1, drifts.size(), drifts.toString());
        assertEquals("REPEATED_RECORDS", drifts.get(0).getCode());
        assertEquals(1L, XborderJava.count(drifts.get(0)));
    }

    @Test
    void claims() throws Exception {
        Claims mem = XborderJava.claims(30_000, null, 100);
        assertEquals(ClaimOutcome.CLAIMED, XborderJava.step(mem, "claim", "evt_1", "t1", 1_000));
        assertEquals(ClaimOutcome.IN_PROGRESS, XborderJava.step(mem, "claim", "evt_1", "t2", 1_001));
        assertEquals(ClaimOutcome.COMPLETED, XborderJava.step(mem, "complete", "evt_1", "t1", 1_002));
        assertTrue(ClaimOutcome.COMPLETED.acknowledges());
        assertEquals(ClaimOutcome.CLAIMED, XborderJava.step(XborderJava.claims(), "claim", "x", "t", 1));
        assertThrows(IllegalArgumentException.class, () -> XborderJava.step(mem, "claim", "evt_1", "t1", -1));
        XborderException.Claim bad = assertThrows(XborderException.Claim.class, () -> XborderJava.step(mem, "nope", "evt_1", "t1", 1));
        assertEquals("INVALID_STEP", bad.getCode());
        // Replies: core's table.
        assertNull(XborderJava.reply(mem, "claim", ClaimOutcome.CLAIMED));
        ClaimReply wait = XborderJava.reply(mem, "claim", ClaimOutcome.IN_PROGRESS);
        assertEquals(503, XborderJava.status(wait));
        assertEquals(30L, XborderJava.retryAfterS(wait));
        assertEquals(200, XborderJava.status(XborderJava.reply(mem, "complete", ClaimOutcome.STALE)));
        assertNull(XborderJava.retryAfterS(XborderJava.reply(mem, "complete", ClaimOutcome.STALE)));
        assertEquals(500, XborderJava.status(XborderJava.reply(mem, "release", ClaimOutcome.STALE)));
        assertEquals(500, XborderJava.status(XborderJava.errorReply(bad)));
        assertEquals(XborderJava.claimReply(503, 30L), wait);

        // A store written in Java.
        Map<String, String> map = new HashMap<>();
        List<Long> ttls = new ArrayList<>();
        JavaClaimStore store = new JavaClaimStore() {
            @Override public synchronized String load(String id) { return map.get(id); }
            @Override public synchronized boolean compareAndSetEntry(String id, String expected, String next, Long ttlMs) {
                if (!java.util.Objects.equals(map.get(id), expected)) return false;
                if (next == null) map.remove(id); else map.put(id, next);
                ttls.add(ttlMs);
                return true;
            }
        };
        Claims shared = XborderJava.claimsWithStore(store, 30_000, 60_000L);
        assertEquals(ClaimOutcome.CLAIMED, XborderJava.step(shared, "claim", "evt_2", "a", 5_000));
        assertEquals(ClaimOutcome.IN_PROGRESS, XborderJava.step(XborderJava.claimsWithStore(store), "claim", "evt_2", "b", 5_001));
        assertEquals(ClaimOutcome.COMPLETED, XborderJava.step(shared, "complete", "evt_2", "a", 5_002));
        assertEquals(ClaimOutcome.DUPLICATE, XborderJava.step(shared, "claim", "evt_2", "c", 5_003));
        assertFalse(ttls.isEmpty());
        assertTrue(map.containsKey("evt_2"));

        // A ClaimTask driven by hand (what an async store does between its calls).
        ClaimTask task = XborderJava.claimTask("claim", "evt_3", "tok", 7_000, 30_000, null);
        ClaimNeed need = task.start();
        while (!(need instanceof ClaimNeed.Done)) {
            if (need instanceof ClaimNeed.Load) {
                need = task.loaded(map.get(((ClaimNeed.Load) need).getId()));
            } else {
                ClaimNeed.CompareAndSet cas = (ClaimNeed.CompareAndSet) need;
                Long ttl = XborderJava.ttlMs(cas);
                need = task.swapped(store.compareAndSetEntry(cas.getId(), cas.getExpected(), cas.getNew(), ttl));
            }
        }
        assertEquals(ClaimOutcome.CLAIMED, ((ClaimNeed.Done) need).getOutcome());
        ClaimTask again = XborderJava.claimTask("claim", "evt_3", "other", 7_001);
        ClaimNeed first = again.start();
        assertTrue(first instanceof ClaimNeed.Load);
        ClaimNeed after = again.loaded(map.get("evt_3"));
        assertEquals(ClaimOutcome.IN_PROGRESS, ((ClaimNeed.Done) after).getOutcome());
    }

    // kotlin/lean.py pools call statuses per thread (issue 16): an error's status must never leak
    // into the next call, a call that re-enters (Rust -> a Java store -> Rust) must get its own
    // status, and threads must not share one.
    @Test
    void reusedCallStatus() throws Exception {
        // The pool is there (the build applied kotlin/lean.py to the generated Kotlin).
        assertTrue(XborderKt.class.getDeclaredField("uniffiXbStatusPool") != null);
        String good = XborderKt.sign(SECRET, BODY);
        String bad = "00" + good.substring(2);
        for (int i = 0; i < 500; i++) {
            XborderException e = assertThrows(XborderException.class, () -> XborderKt.verify(SECRET, BODY, bad));
            assertEquals("SIGNATURE_MISMATCH", e.errorCode());
            XborderKt.verify(SECRET, BODY, good);
            assertEquals(EventKind.LIVE, XborderKt.classifyEvent("order:created").getKind());
            XborderException m = assertThrows(XborderException.class,
                () -> XborderKt.decodeEnvelope("{".getBytes(StandardCharsets.UTF_8), XborderKt.defaultDecodeLimits()));
            assertEquals("MALFORMED_JSON", m.errorCode());
        }

        // A store that calls into Rust from inside Rust's call, and fails every third load.
        Map<String, String> map = new HashMap<>();
        int[] loads = {0};
        JavaClaimStore reentrant = new JavaClaimStore() {
            @Override public synchronized String load(String id) {
                assertEquals(EventKind.UNKNOWN, XborderKt.classifyEvent("not:an_event").getKind());
                assertThrows(XborderException.class, () -> XborderKt.verify(SECRET, BODY, bad));
                if (++loads[0] % 3 == 0) throw new IllegalStateException("store down");
                return map.get(id);
            }
            @Override public synchronized boolean compareAndSetEntry(String id, String expected, String next, Long ttlMs) {
                try {
                    XborderKt.verify(SECRET, BODY, good);
                } catch (XborderException e) {
                    throw new AssertionError("a good signature refused inside a store call", e);
                }
                if (!java.util.Objects.equals(map.get(id), expected)) return false;
                if (next == null) map.remove(id); else map.put(id, next);
                return true;
            }
        };
        Claims claims = XborderJava.claimsWithStore(reentrant);
        int claimed = 0, unavailable = 0;
        for (int i = 0; i < 60; i++) {
            try {
                assertEquals(ClaimOutcome.CLAIMED, XborderJava.step(claims, "claim", "evt_r" + i, "t", 1_000 + i));
                claimed++;
            } catch (XborderException.Store e) {
                assertEquals("STORE_UNAVAILABLE", e.errorCode());
                unavailable++;
            }
            // The next plain call is unaffected by what the store did.
            XborderKt.verify(SECRET, BODY, good);
        }
        assertEquals(60, claimed + unavailable);
        assertTrue(claimed > 0 && unavailable > 0, claimed + " claimed, " + unavailable + " unavailable");

        // Threads, each with its own statuses.
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            final int seed = t;
            Thread th = new Thread(() -> {
                try {
                    for (int i = 0; i < 1_000; i++) {
                        if ((i + seed) % 2 == 0) {
                            XborderKt.verify(SECRET, BODY, good);
                        } else {
                            XborderException e = assertThrows(XborderException.class, () -> XborderKt.verify(SECRET, BODY, bad));
                            assertEquals("SIGNATURE_MISMATCH", e.errorCode());
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) th.join();
        assertTrue(failures.isEmpty(), failures.toString());
    }
}
