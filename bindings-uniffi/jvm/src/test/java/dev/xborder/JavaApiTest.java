// The API from Java, as a Java user writes it: entry classes per concern, constructors, long and
// int, getters, one unchecked XborderException (lambdas need no try/catch), and a store written in
// Java. Every number parameter is also given a wrong value (IllegalArgumentException naming it).
package dev.xborder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class JavaApiTest {
    static final String SECRET = "whsec_test";
    static final byte[] BODY =
        "{\"id\":\"evt_1\",\"event\":\"order:created\",\"entity\":{\"id\":\"ord_1\",\"type\":\"order\",\"data\":{}}}"
            .getBytes(StandardCharsets.UTF_8);

    static String code(Executable e) {
        return assertThrows(XborderException.class, e).getCode();
    }

    @Test
    void libraryComesFromTheJar() {
        // Surefire sets no jna.library.path: JNA must have found the library in the classes.
        assertNull(System.getProperty("jna.library.path"));
        assertTrue(JavaApiTest.class.getClassLoader().getResource("linux-x86-64/libxborder_ffi.so") != null);
    }

    @Test
    void signVerifyReceive() {
        String header = Webhooks.sign(SECRET, BODY);
        assertEquals(64, header.length());
        Webhooks.verify(SECRET, BODY, header);
        XborderException bad = assertThrows(XborderException.class, () -> Webhooks.verify(SECRET, BODY, "00" + header.substring(2)));
        assertInstanceOf(RuntimeException.class, bad);
        assertEquals("SIGNATURE_MISMATCH", bad.getCode());
        assertNull(bad.getField());
        // The code once, then what happened (core's detail, which may begin with the code itself).
        assertTrue(bad.getMessage().startsWith("SIGNATURE_MISMATCH: ") && bad.getMessage().split("SIGNATURE_MISMATCH", -1).length == 2, bad.getMessage());
        assertTrue(bad.getDetail().endsWith(bad.getMessage().substring("SIGNATURE_MISMATCH: ".length())), bad.getMessage());
        assertEquals("MALFORMED_SECRET", code(() -> Webhooks.sign(" " + SECRET, BODY)));
        Webhooks.verifyWithSecrets(List.of("whsec_old", SECRET), BODY, header);
        assertEquals("EMPTY_SECRET", code(() -> Webhooks.verifyWithSecrets(List.of(), BODY, header)));

        Receiver rx = new Receiver(SECRET);
        Decision d = rx.receive(BODY, header);
        assertEquals(Action.PROCESS, d.getAction());
        assertEquals("process", d.getAction().toString());
        assertTrue(d.getAcknowledges());
        assertEquals(new ClaimReply(200, null), d.getReply());
        assertEquals("evt_1", d.getEnvelope().getId());
        assertEquals(EventKind.LIVE, d.getEnvelope().getKind());
        rx.commit(d.getEnvelope().getId());
        assertEquals(Action.DUPLICATE, rx.receive(BODY, header).getAction());

        Decision tampered = rx.receive("{\"id\":\"evt_2\"}".getBytes(StandardCharsets.UTF_8), header);
        assertEquals(Action.REJECT, tampered.getAction());
        assertEquals("SIGNATURE_MISMATCH", tampered.getErrorCode());
        assertEquals(400, tampered.getReply().getStatus());
        assertFalse(tampered.getAcknowledges());

        // Window, limits and rotation, with longs; null is core's default.
        DecodeLimits limits = new DecodeLimits(16, 64);
        assertEquals(16, limits.getMaxBodyBytes());
        Decision tooBig = new Receiver(SECRET, 100L, limits, null).receive(BODY, header);
        assertEquals(Action.REJECT, tooBig.getAction());
        assertEquals(413, tooBig.getReply().getStatus());
        Receiver rotating = Receiver.withSecrets(List.of("whsec_old", SECRET), 10L, null, null);
        assertEquals(Action.PROCESS, rotating.receive(BODY, header).getAction());
        assertEquals(Action.PROCESS, new Receiver(List.of(SECRET)).receive(BODY, header).getAction());
        assertEquals(Action.PROCESS, new Receiver(SECRET, null, null, null).receive(BODY, header).getAction());
        assertEquals("EMPTY_SECRET", code(() -> new Receiver("")));

        Envelope env = Webhooks.decodeEnvelope(BODY, DecodeLimits.defaults());
        assertEquals("order:created", env.getEvent());
        assertEquals(env, Webhooks.decodeEnvelope(BODY));
        XborderException missing = assertThrows(XborderException.class,
            () -> Webhooks.decodeEnvelope("{\"event\":\"order:created\"}".getBytes(StandardCharsets.UTF_8)));
        assertEquals("MISSING_FIELD", missing.getCode());
        assertEquals("id", missing.getField());
        assertTrue(missing.getMessage().startsWith("MISSING_FIELD (id): ") && missing.getMessage().split("MISSING_FIELD", -1).length == 2,
            missing.getMessage());
    }

    @Test
    void events() {
        assertTrue(Events.checkRegistration(List.of("order:created")).getOk());
        RegistrationCheck full = Events.checkRegistration(List.of("order:created"), 1_000_000L);
        assertFalse(full.getOk());
        assertEquals("WEBHOOK_LIMIT_REACHED", full.getCode());
        RegistrationCheck unknown = Events.checkRegistration(List.of("order:rejected"));
        assertEquals("order:rejected", unknown.getRejected().get(0).getEvent());
        assertEquals(EventKind.LIVE, Events.classify("order:created").getKind());
        assertTrue(Events.matches(List.of("order:*"), "order:created"));
        assertTrue(Events.createWebhookBody(List.of("order:created"), "https://example.com/hook").contains("order:created"));
        XborderException refused = assertThrows(XborderException.class,
            () -> Events.createWebhookBody(List.of("order:rejected"), "https://example.com/hook"));
        assertEquals("VALIDATION_FAILED", refused.getCode());
        assertEquals("order:rejected", refused.getRejected().get(0).getEvent());

        Catalog catalog = new Catalog();
        catalog.addLive("order:rejected");
        assertEquals(EventKind.LIVE, catalog.classify("order:rejected").getKind());
        assertTrue(catalog.isLive("order:rejected"));
        assertTrue(catalog.checkRegistration(List.of("order:rejected", "order:*")).getOk());
        assertTrue(catalog.checkRegistration(List.of("order:rejected"), 0L).getOk());
        assertTrue(catalog.matches(List.of("order:*"), "order:rejected"));
        assertTrue(catalog.createWebhookBody(List.of("order:rejected"), "https://example.com/hook").contains("order:rejected"));
        assertEquals("INVALID_EVENT_NAME", code(() -> catalog.addLive("not a name")));

        byte[] rejected = "{\"id\":\"evt_9\",\"event\":\"order:rejected\",\"entity\":{\"id\":\"o\",\"type\":\"order\",\"data\":{}}}"
            .getBytes(StandardCharsets.UTF_8);
        String sig = Webhooks.sign(SECRET, rejected);
        assertEquals(Action.IGNORE, new Receiver(SECRET).receive(rejected, sig).getAction());
        assertEquals(Action.PROCESS, new Receiver(SECRET, null, null, catalog).receive(rejected, sig).getAction());
        assertEquals(Action.PROCESS, new Receiver(List.of("whsec_old", SECRET), 5L, null, catalog).receive(rejected, sig).getAction());
    }

    static final String RULES_CO = """
        {"data": {"country": "CO", "ownerType": "individual", "rules": {
            "requiredFields": [{"field": "firstName", "description": "First name"}],
            "paymentTypes": [{"type": "bank_account", "requiredFields": [{"field": "accountNumber"}]}]}},
         "requestId": "req_1"}""";
    static final String BANKS_CO = "{\"data\": [{\"id\": \"bank_co_001\", \"name\": \"Banco Uno\"}], \"requestId\": \"req_2\"}";

    static String issues(BeneficiaryValidation v) {
        return v.getIssues().stream().map(i -> i.getPath() + " " + i.getCode()).sorted().collect(Collectors.joining(", "));
    }

    @Test
    void beneficiaries() {
        BeneficiaryValidation empty = Beneficiaries.validate("{}");
        assertFalse(empty.getValid());
        assertTrue(empty.getIssues().stream().anyMatch(i -> i.getCode() == IssueCode.REQUIRED), empty.toString());
        List<RequiredField> fields = Beneficiaries.requiredFields(null, "bank_account", "US");
        assertTrue(fields.stream().anyMatch(f -> f.getPath().equals("paymentInfo.routingNumber")), fields.toString());
        assertEquals("MALFORMED_JSON", code(() -> Beneficiaries.validate("{")));

        String draft = "{\"ownerType\":\"individual\",\"country\":\"CO\",\"paymentType\":\"bank_account\","
            + "\"paymentInfo\":{\"bankId\":\"bank_co_001\",\"bic\":\"DEUTZZFF\"}}";
        BeneficiaryValidation v = Beneficiaries.validate(draft, RULES_CO, "CO", BANKS_CO);
        assertEquals("firstName REQUIRED, paymentInfo.accountNumber REQUIRED, paymentInfo.bic INVALID_BIC", issues(v));
        Issue first = v.getIssues().stream().filter(i -> i.getPath().equals("firstName")).findFirst().orElseThrow();
        assertEquals("First name", first.getLabel());
        assertEquals("INVALID_BIC", IssueCode.INVALID_BIC.toString());

        try (BeneficiaryValidator validator = new BeneficiaryValidator(RULES_CO, "CO", BANKS_CO)) {
            assertEquals(v, validator.validate(draft));
            assertEquals("MALFORMED_JSON", code(() -> validator.validate("{")));
        }
        assertEquals(" BANKS_UNREADABLE, paymentInfo.bic INVALID_BIC", issues(new BeneficiaryValidator(null, "CO", "[]").validate(draft)));
        assertTrue(new BeneficiaryValidator().validate("{}").getIssues().size() > 0);
        XborderException unreadable = assertThrows(XborderException.class, () -> Beneficiaries.requiredFields("[]", "bank_account", "CO"));
        assertEquals("RULES_UNREADABLE", unreadable.getCode());
        assertTrue(unreadable.getDetail().contains("rules document"), unreadable.getDetail());
        assertEquals(FieldSource.RULES, Beneficiaries.requiredFields(RULES_CO, "bank_account", "CO").stream()
            .filter(f -> f.getPath().equals("firstName")).findFirst().orElseThrow().getSource());
    }

    /** Issue 31 from Java: checkAccount, the form model (overloads), normalize, coded refusals. */
    @Test
    void accountsAndForms() {
        AccountCheck typing = Accounts.checkAccount(AccountKind.IBAN, "de89 3704");
        assertEquals(AccountState.INCOMPLETE, typing.getState());
        assertEquals("DE89 3704", typing.getDisplay());
        assertNull(typing.getReason());
        AccountCheck wrong = Accounts.checkAccount(AccountKind.fromWire("iban"), "DE89 3704 0044 0532 0130 001");
        assertEquals(AccountState.INVALID, wrong.getState());
        assertEquals(IssueCode.INVALID_IBAN, wrong.getCode());
        assertEquals(Reason.LENGTH, wrong.getReason());
        assertEquals(Integer.valueOf(22), wrong.getParams().getExpected());
        assertEquals(Integer.valueOf(23), wrong.getParams().getActual());
        assertEquals("sort_code", AccountKind.SORT_CODE.getWireName());
        XborderException unknown = assertThrows(XborderException.class, () -> AccountKind.fromWire("swift"));
        assertEquals("UNKNOWN_ACCOUNT_KIND", unknown.getCode());

        List<FormField> fields = Forms.beneficiaryForm("CO", "bank_account", "individual", RULES_CO, "CO", BANKS_CO);
        assertEquals(List.of("firstName", "paymentInfo", "paymentInfo.bankId", "paymentInfo.accountNumber"),
            fields.stream().map(FormField::getPath).collect(Collectors.toList()));
        assertEquals(FormInput.CHOICE, fields.get(2).getInput());
        assertEquals(List.of(new FormOption("bank_co_001", "Banco Uno")), fields.get(2).getOptions());
        assertEquals(3, Forms.beneficiaryForm("US", "bank_account").size());  // the overload without the optional ones
        try (BeneficiaryValidator validator = new BeneficiaryValidator(RULES_CO, "CO", BANKS_CO)) {
            assertEquals(fields, validator.form("CO", "bank_account"));
            assertEquals(fields, validator.form("CO", "bank_account", "individual"));
            assertEquals("RULES_MISMATCH", code(() -> validator.form("MX", "bank_account")));
        }
        XborderException country = assertThrows(XborderException.class, () -> Forms.beneficiaryForm("co", "bank_account"));
        assertEquals("INVALID_VALUE", country.getCode());
        assertEquals("country", country.getField());
        assertEquals("BANKS_MISMATCH", code(() -> Forms.beneficiaryForm("CO", "bank_account", null, null, "MX", BANKS_CO)));

        String draft = "{\"ownerType\":\"individual\",\"country\":\"DE\",\"paymentType\":\"bank_account\","
            + "\"paymentInfo\":{\"bankId\":\"b1\",\"accountNumber\":\"de89 3704 0044 0532 0130 00\"}}";
        assertTrue(Forms.normalizeBeneficiary(draft).contains("\"DE89370400440532013000\""));
        assertEquals("MALFORMED_JSON", code(() -> Forms.normalizeBeneficiary("{")));
        Issue iban = Beneficiaries.validate(draft.replace("0130 00", "0130 001")).getIssues().get(0);
        assertEquals(Reason.LENGTH, iban.getReason());
        assertEquals(new AccountParams(22, 23, null), iban.getParams());
    }

    @Test
    void pagination() {
        assertEquals("page=0&pageSize=10&sortBy=createdAt&sortOrder=DESC&status=success",
            Pagination.listQuery("{\"sortOrder\":\"desc\",\"filters\":{\"status\":\"success\"}}"));
        XborderException e = assertThrows(XborderException.class, () -> Pagination.listQuery("{\"status\":\"success\"}"));
        assertEquals("UNKNOWN_PARAMETER", e.getCode());
        assertEquals("status", e.getField());

        String ten = String.join(",", java.util.Collections.nCopies(10, "{}"));
        PageInfo info = Pagination.pageInfo("{\"data\":[" + ten + "],\"total\":25,\"page\":1,\"pageSize\":10}", new PageRequest(1L, 10L));
        assertEquals(25, info.getTotal());
        assertEquals(1, info.getPage());
        assertEquals(3, info.getTotalPages());
        assertEquals(11, info.getFirstItem());
        assertEquals(20, info.getLastItem());
        assertEquals(2L, info.getNextPage());
        assertTrue(info.getHasNext());
        assertEquals(info, Pagination.pageInfo("{\"data\":[" + ten + "],\"total\":25,\"page\":1,\"pageSize\":10}"));
        assertEquals("OUT_OF_RANGE", code(() -> Pagination.pageInfo("{\"data\":[],\"total\":18446744073709551616,\"page\":0,\"pageSize\":10}", new PageRequest())));

        List<String> records = new ArrayList<>();
        List<Drift> drifts = new ArrayList<>();
        String[] pages = {
            "{\"data\":[{\"id\":\"a\"},{\"id\":\"b\"}],\"total\":3,\"page\":0,\"pageSize\":2}",
            "{\"data\":[{\"id\":\"b\"},{\"id\":\"c\"}],\"total\":3,\"page\":1,\"pageSize\":2}",
        };
        try (PageWalker walker = new PageWalker("{\"pageSize\":2}")) {
            int n = 0;
            String query;
            while ((query = walker.nextQuery()) != null) {
                assertTrue(query.startsWith("page=" + n + "&pageSize=2"), query);
                WalkStep step = walker.feed(pages[n++]);
                records.addAll(step.getRecordsJson());
                drifts.addAll(step.getDrifts());
            }
            assertTrue(walker.isDone());
        }
        assertEquals(List.of("{\"id\":\"a\"}", "{\"id\":\"b\"}", "{\"id\":\"c\"}"), records);
        assertEquals("REPEATED_RECORDS", drifts.get(0).getCode());
        assertEquals(1L, drifts.get(0).getCount());
        assertEquals("UNKNOWN_PARAMETER", code(() -> new PageWalker("{\"status\":\"x\"}")));
    }

    /** A store written in Java: a map under a lock, the TTLs it was given. */
    static final class MapStore implements ClaimStore {
        final Map<String, String> map = new HashMap<>();
        final List<Long> ttls = new ArrayList<>();
        final List<StoreTime> times = new ArrayList<>();

        @Override public synchronized String load(String id, StoreTime time) { return map.get(id); }

        @Override public synchronized boolean compareAndSet(String id, String expected, String next, StoreTime time) {
            if (!Objects.equals(map.get(id), expected)) return false;
            if (next == null) map.remove(id); else map.put(id, next);
            ttls.add(time.getTtlMs());
            times.add(time);
            return true;
        }
    }

    @Test
    void claims() {
        Claims mem = new Claims(30_000L, null, 100L);
        assertEquals(ClaimOutcome.CLAIMED, mem.step("claim", "evt_1", "t1", 1_000));
        assertEquals(ClaimOutcome.IN_PROGRESS, mem.step("claim", "evt_1", "t2", 1_001));
        assertEquals(ClaimOutcome.COMPLETED, mem.step("complete", "evt_1", "t1", 1_002));
        assertTrue(ClaimOutcome.COMPLETED.acknowledges());
        assertEquals("in_progress", ClaimOutcome.IN_PROGRESS.toString());
        assertEquals(ClaimOutcome.CLAIMED, new Claims().step("claim", "x", "t", 1));
        XborderException bad = assertThrows(XborderException.class, () -> mem.step("nope", "evt_1", "t1", 1));
        assertEquals("INVALID_STEP", bad.getCode());
        assertEquals("do", bad.getField());
        assertNull(mem.reply("claim", ClaimOutcome.CLAIMED));
        ClaimReply wait = mem.reply("claim", ClaimOutcome.IN_PROGRESS);
        assertEquals(503, wait.getStatus());
        assertEquals(30L, wait.getRetryAfterS());
        assertEquals(new ClaimReply(503, 30L), wait);
        assertEquals(200, mem.reply("complete", ClaimOutcome.STALE).getStatus());
        assertEquals(500, mem.reply("release", ClaimOutcome.STALE).getStatus());
        assertEquals(500, Claims.errorReply(bad).getStatus());
        assertEquals(new ClaimReply(503, 1L), Claims.errorReply("STORE_UNAVAILABLE"));

        MapStore store = new MapStore();
        Claims shared = new Claims(store, 30_000L, 60_000L);
        assertEquals(ClaimOutcome.CLAIMED, shared.step("claim", "evt_2", "a", 5_000));
        assertEquals(ClaimOutcome.IN_PROGRESS, Claims.withStore(store).step("claim", "evt_2", "b", 5_001));
        assertEquals(ClaimOutcome.COMPLETED, shared.step("complete", "evt_2", "a", 5_002));
        assertEquals(ClaimOutcome.DUPLICATE, shared.step("claim", "evt_2", "c", 5_003));
        assertEquals(List.of(60_000L, 60_000L), store.ttls, "a claim lives two leases, a done id the window");
        // Core's times, as the store is given them: the step's, and the expiry to write.
        assertEquals(new StoreTime(5_000L, 60_000L, 65_000L), store.times.get(0));
        assertEquals(new StoreTime(5_002L, 60_000L, 65_002L), store.times.get(1));
        // No window: core's 7 days, the TTL a store gives a done id.
        MapStore week = new MapStore();
        Claims byDefault = Claims.withStore(week, 1_000L);
        byDefault.step("claim", "evt_w", "a", 0);
        byDefault.step("complete", "evt_w", "a", 1);
        assertEquals(Arrays.asList(2_000L, 7L * 24 * 3600 * 1000), week.ttls);

        // A store that throws: STORE_UNAVAILABLE, with 503 and Retry-After to answer.
        ClaimStore down = new ClaimStore() {
            @Override public String load(String id, StoreTime time) { throw new IllegalStateException("redis: connection refused"); }
            @Override public boolean compareAndSet(String id, String expected, String next, StoreTime time) { throw new IllegalStateException(); }
        };
        XborderException unavailable = assertThrows(XborderException.class, () -> new Claims(down).step("claim", "e", "t", 0));
        assertEquals("STORE_UNAVAILABLE", unavailable.getCode());
        assertEquals(new ClaimReply(503, 1L), Claims.errorReply(unavailable));

        // A ClaimTask driven by hand (what an async store does between its calls).
        try (ClaimTask task = new ClaimTask("claim", "evt_3", "tok", 7_000, 30_000L, null)) {
            ClaimNeed need = task.start();
            while (!(need instanceof ClaimNeed.Done)) {
                if (need instanceof ClaimNeed.Load load) {
                    need = task.loaded(store.load(load.getId(), load.getTime()));
                } else {
                    ClaimNeed.CompareAndSet cas = (ClaimNeed.CompareAndSet) need;
                    assertEquals(new StoreTime(7_000L, 60_000L, 67_000L), cas.getTime());
                    need = task.swapped(store.compareAndSet(cas.getId(), cas.getExpected(), cas.getNew(), cas.getTime()));
                }
            }
            assertEquals(ClaimOutcome.CLAIMED, ((ClaimNeed.Done) need).getOutcome());
        }
        ClaimTask again = new ClaimTask("claim", "evt_3", "other", 7_001);
        assertInstanceOf(ClaimNeed.Load.class, again.start());
        assertEquals(ClaimOutcome.IN_PROGRESS, ((ClaimNeed.Done) again.loaded(store.load("evt_3", new StoreTime(7_001L, null, null)))).getOutcome());
        ClaimTask failing = new ClaimTask("claim", "evt_4", "t", 1);
        failing.start();
        XborderException failed = assertThrows(XborderException.class, () -> failing.failed("redis: timeout"));
        assertEquals("STORE_UNAVAILABLE", failed.getCode());
        assertTrue(failed.getDetail().contains("redis: timeout"), failed.getDetail());
    }

    /** Every number parameter, given a negative value: IllegalArgumentException naming it. */
    @Test
    void handleDeliveryFromJava() {
        // The one call (issue 33): Deliveries.handleDelivery with a Java lambda as the persist.
        Receiver receiver = new Receiver(SECRET);
        Claims claims = new Claims();
        String signature = Webhooks.sign(SECRET, BODY);
        List<String> saved = new ArrayList<>();
        DeliveryAnswer ok = Deliveries.handleDelivery(receiver, claims, BODY, signature, event -> saved.add(event.getId()));
        assertEquals(new DeliveryAnswer(200, null, ClaimOutcome.COMPLETED, null, true, null), ok);
        assertEquals(List.of("evt_1"), saved);
        assertEquals(Map.of(), ok.getHeaders());
        // A persist that throws: 500 PERSIST_FAILED, the claim released, the exception given back.
        byte[] other = "{\"id\":\"evt_2\",\"event\":\"order:created\",\"entity\":{\"id\":\"o\",\"type\":\"order\"}}"
            .getBytes(StandardCharsets.UTF_8);
        IllegalStateException boom = new IllegalStateException("db down");
        DeliveryAnswer failed = Deliveries.handleDelivery(receiver, claims, other, Webhooks.sign(SECRET, other), "t1", () -> 5L,
            event -> { throw boom; });
        assertEquals(500, failed.getStatus());
        assertEquals("PERSIST_FAILED", failed.getCode());
        assertEquals(ClaimOutcome.RELEASED, failed.getOutcome());
        assertFalse(failed.getPersisted());
        assertTrue(failed.getPersistError() == boom);
        // Act by act, over a store of the host's: the claim asks a load.
        try (DeliveryHandling h = DeliveryHandling.withStoreSteps(receiver, other, Webhooks.sign(SECRET, other), "t2")) {
            assertEquals(new HandlingAct.Claim("evt_2"), h.next());
            assertEquals(new HandlingAct.Load("evt_2", new StoreTime(10L, null, null)), h.step(10L));
        }
        // In a transaction (the Java overload with inTransaction): the complete step goes on to
        // the Commit act; committed(true) answers 200; lastStep is the complete's outcome.
        byte[] third = "{\"id\":\"evt_3\",\"event\":\"order:created\",\"entity\":{\"id\":\"o\",\"type\":\"order\"}}"
            .getBytes(StandardCharsets.UTF_8);
        try (DeliveryHandling h = new DeliveryHandling(receiver, claims, third, Webhooks.sign(SECRET, third), "t3", true)) {
            assertTrue(h.getInTransaction());
            assertInstanceOf(HandlingAct.Persist.class, h.step(20L));
            assertEquals(new HandlingAct.Complete("evt_3"), h.persisted(true));
            assertEquals(new HandlingAct.Commit("evt_3"), h.step(21L));
            assertEquals(new HandlingStep("complete", ClaimOutcome.COMPLETED, null), h.lastStep());
            HandlingAct end = h.committed(true);
            assertEquals(200, ((HandlingAct.Answer) end).getAnswer().getStatus());
        }
    }

    @Test
    void catchUpFromJava() {
        // The catch-up's one call: Deliveries.catchUp with Java lambdas as the GET and the persist
        // (the overloads without the defaults), one page from memory; then a 503 five times.
        String page = "{\"data\":[{\"id\":\"evt_2\",\"name\":\"order:created\",\"aggregateType\":\"order\","
            + "\"aggregateId\":\"ord_2\",\"payload\":{\"id\":\"ord_2\"},\"createdAt\":\"2026-11-27T12:02:00.000Z\"},"
            + "{\"id\":\"evt_1\",\"name\":\"order:created\",\"aggregateType\":\"order\",\"aggregateId\":\"ord_1\","
            + "\"payload\":{\"id\":\"ord_1\"},\"createdAt\":\"2026-11-27T12:01:00.000Z\"}],"
            + "\"total\":2,\"page\":0,\"pageSize\":100}";
        Receiver receiver = new Receiver(SECRET, 0L);
        Claims claims = new Claims();
        assertTrue(Deliveries.handleDelivery(receiver, claims, BODY, Webhooks.sign(SECRET, BODY), event -> { }).getPersisted());
        List<String> paths = new ArrayList<>();
        List<String> saved = new ArrayList<>();
        CatchUpResult result = Deliveries.catchUp(path -> {
            paths.add(path);
            return new HttpAnswer(200, Map.of("Content-Type", "application/json"), page);
        }, receiver, claims, event -> saved.add(event.getId()));
        assertEquals(List.of(CatchUp.PATH + "page=0&pageSize=100&sortBy=createdAt&sortOrder=DESC"), paths);
        assertEquals(new CatchUpResult("2026-11-27T12:02:00.000Z", 2, 1, 1, 0, 0, List.of(), List.of()), result);
        assertEquals(List.of("evt_2"), saved);
        List<Long> slept = new ArrayList<>();
        XborderException e = assertThrows(XborderException.class, () -> Deliveries.catchUp(path -> new HttpAnswer(503, ""),
            receiver, claims, null, null, null, ms -> { slept.add(ms); return kotlin.Unit.INSTANCE; }, event -> { }));
        assertEquals("API_ERROR", e.getCode());
        assertEquals(503, e.getApi().getStatus());
        assertEquals(List.of(1000L, 1000L, 1000L, 1000L), slept);
    }

    @Test
    void wrongNumbersAreRefusedByName() {
        Map<String, List<Supplier<Object>>> wrong = new java.util.LinkedHashMap<>();
        wrong.put("window", List.of(() -> new Receiver(SECRET, -1L), () -> new Receiver(List.of(SECRET), -1L, null, null),
            () -> Receiver.withSecrets(List.of(SECRET), -1L)));
        wrong.put("maxBodyBytes", List.of(() -> new DecodeLimits(-1, 1)));
        wrong.put("maxDepth", List.of(() -> new DecodeLimits(1, -1)));
        wrong.put("existingWebhooks", List.of(() -> Events.checkRegistration(List.of("order:created"), -1L),
            () -> Events.createWebhookBody(List.of("order:created"), "https://a.test", -1L),
            () -> new Catalog().checkRegistration(List.of("order:created"), -1L),
            () -> new Catalog().createWebhookBody(List.of("order:created"), "https://a.test", -1L),
            () -> Events.checkRegistration(List.of("order:created"), 4_294_967_296L)));
        wrong.put("page", List.of(() -> new PageRequest(-1L, null)));
        wrong.put("pageSize", List.of(() -> new PageRequest(null, -1L)));
        wrong.put("leaseMs", List.of(() -> new Claims(-1L), () -> new Claims(new MapStore(), -1L), () -> new ClaimTask("claim", "e", "t", 0, -1L)));
        wrong.put("windowMs", List.of(() -> new Claims(1L, -1L), () -> Claims.withStore(new MapStore(), 1L, -1L),
            () -> new ClaimTask("claim", "e", "t", 0, null, -1L)));
        wrong.put("capacity", List.of(() -> new Claims(1L, null, -1L)));
        wrong.put("atMs", List.of(() -> new Claims().step("claim", "e", "t", -1), () -> new ClaimTask("claim", "e", "t", -1)));
        wrong.put("status", List.of(() -> new ClaimReply(0, null), () -> new ClaimReply(1000, null)));
        wrong.put("retryAfterS", List.of(() -> new ClaimReply(503, -1L)));
        int n = 0;
        for (Map.Entry<String, List<Supplier<Object>>> e : wrong.entrySet()) {
            for (Supplier<Object> call : e.getValue()) {
                IllegalArgumentException x = assertThrows(IllegalArgumentException.class, call::get, e.getKey());
                assertTrue(x.getMessage().startsWith(e.getKey() + " must be") && x.getMessage().contains("got"), x.getMessage());
                n++;
            }
        }
        assertEquals(wrong.values().stream().mapToInt(List::size).sum(), n);
        assertTrue(n >= 24, n + " calls");
    }

    /** The hand-written enums mirror the generated ones, constant for constant. */
    @Test
    void enumsMirrorTheGeneratedOnes() {
        Map<Class<?>, Class<?>> pairs = Map.ofEntries(
            Map.entry(Action.class, dev.xborder.ffi.Action.class),
            Map.entry(EventKind.class, dev.xborder.ffi.EventKind.class),
            Map.entry(IssueCode.class, dev.xborder.ffi.IssueCode.class),
            Map.entry(FieldSource.class, dev.xborder.ffi.FieldSource.class),
            Map.entry(ClaimOutcome.class, dev.xborder.ffi.ClaimOutcome.class),
            Map.entry(AccountKind.class, dev.xborder.ffi.AccountKind.class),
            Map.entry(AccountState.class, dev.xborder.ffi.AccountState.class),
            Map.entry(Reason.class, dev.xborder.ffi.Reason.class),
            Map.entry(FormSource.class, dev.xborder.ffi.FormSource.class),
            Map.entry(FormInput.class, dev.xborder.ffi.FormInput.class),
            Map.entry(Retry.class, dev.xborder.ffi.Retry.class));
        pairs.forEach((mine, generated) -> assertEquals(
            Arrays.stream(generated.getEnumConstants()).map(c -> ((Enum<?>) c).name()).collect(Collectors.toList()),
            Arrays.stream(mine.getEnumConstants()).map(c -> ((Enum<?>) c).name()).collect(Collectors.toList()),
            mine.getSimpleName()));
        for (IssueCode c : IssueCode.values()) assertEquals(c.name(), c.toString());
    }

    /** Errors and re-entrant store calls (Rust -> a Java store -> Rust) on several threads. */
    @Test
    void errorsStoresAndThreads() throws Exception {
        String good = Webhooks.sign(SECRET, BODY);
        String bad = "00" + good.substring(2);
        Map<String, String> map = new HashMap<>();
        int[] loads = {0};
        ClaimStore reentrant = new ClaimStore() {
            @Override public synchronized String load(String id, StoreTime time) {
                assertEquals(EventKind.UNKNOWN, Events.classify("not:an_event").getKind());
                assertEquals("SIGNATURE_MISMATCH", code(() -> Webhooks.verify(SECRET, BODY, bad)));
                if (++loads[0] % 3 == 0) throw new IllegalStateException("store down");
                return map.get(id);
            }
            @Override public synchronized boolean compareAndSet(String id, String expected, String next, StoreTime time) {
                Webhooks.verify(SECRET, BODY, good);
                if (!Objects.equals(map.get(id), expected)) return false;
                if (next == null) map.remove(id); else map.put(id, next);
                return true;
            }
        };
        Claims claims = new Claims(reentrant);
        int claimed = 0, unavailable = 0;
        for (int i = 0; i < 60; i++) {
            try {
                assertEquals(ClaimOutcome.CLAIMED, claims.step("claim", "evt_r" + i, "t", 1_000 + i));
                claimed++;
            } catch (XborderException e) {
                assertEquals("STORE_UNAVAILABLE", e.getCode());
                unavailable++;
            }
            Webhooks.verify(SECRET, BODY, good);
        }
        assertTrue(claimed > 0 && unavailable > 0, claimed + " claimed, " + unavailable + " unavailable");

        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            final int seed = t;
            Thread th = new Thread(() -> {
                try {
                    for (int i = 0; i < 1_000; i++) {
                        if ((i + seed) % 2 == 0) Webhooks.verify(SECRET, BODY, good);
                        else assertEquals("SIGNATURE_MISMATCH", code(() -> Webhooks.verify(SECRET, BODY, bad)));
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
