"""The Python binding's own tests: what a Python user calls, with right and wrong values.

Run by bindings-uniffi/python/tests/run.sh (from bindings-uniffi/test.sh python) against the
wheel installed in a fresh virtualenv, from outside the source tree; it also runs against
bindings-uniffi/dist/python on PYTHONPATH (the same module). Issue 12: a `str` secret was read as one secret per character,
so a body signed with the key "w" was accepted for the secret "whsec_test".
"""
import array
import asyncio
import hashlib
import hmac
import json
import random
import threading
import unittest
from urllib.parse import parse_qs

import xborder as x

SECRET = "whsec_test"
BODY = b'{"id":"evt_1","event":"order:created","entity":{"id":"ord_1","type":"order","data":{}}}'


def hmac_hex(key: bytes, body: bytes) -> str:
    return hmac.new(key, body, hashlib.sha256).hexdigest()


class OneSecret(unittest.TestCase):
    """One secret is the common case: its UTF-8 bytes are the key, never split, never trimmed."""

    def test_every_proper_prefix_of_the_secret_is_refused(self):
        for n in range(1, len(SECRET)):
            forged = hmac_hex(SECRET[:n].encode(), BODY)
            with self.subTest(prefix=SECRET[:n]):
                with self.assertRaises(x.XborderError.Signature) as e:
                    x.verify(SECRET, BODY, forged)
                self.assertEqual(e.exception.code, "SIGNATURE_MISMATCH")
                d = x.Receiver(SECRET).receive(BODY, forged)
                self.assertEqual((d.action, d.error_code), (x.Action.REJECT, "SIGNATURE_MISMATCH"))

    def test_each_single_character_key_is_refused(self):
        rx = x.Receiver(SECRET)
        for ch in set(SECRET):
            forged = hmac_hex(ch.encode(), BODY)
            self.assertEqual(rx.receive(BODY, forged).action, x.Action.REJECT, ch)
            with self.assertRaises(x.XborderError):
                x.verify(SECRET, BODY, forged)

    def test_the_whole_secret_as_utf8_is_accepted(self):
        good = hmac_hex(SECRET.encode("utf-8"), BODY)
        self.assertEqual(x.sign(SECRET, BODY), good)
        x.verify(SECRET, BODY, good)
        d = x.Receiver(SECRET).receive(BODY, good)
        self.assertEqual(d.action, x.Action.PROCESS)
        self.assertEqual(d.envelope.id, "evt_1")

    def test_non_ascii_secret_is_utf8_not_latin1_or_code_points(self):
        secret = "clé_é"
        utf8 = hmac_hex(secret.encode("utf-8"), BODY)
        latin1 = hmac_hex(secret.encode("latin-1"), BODY)
        self.assertNotEqual(utf8, latin1)
        self.assertEqual(x.sign(secret, BODY), utf8)
        x.verify(secret, BODY, utf8)
        with self.assertRaises(x.XborderError.Signature):
            x.verify(secret, BODY, latin1)
        self.assertEqual(x.Receiver(secret).receive(BODY, utf8).action, x.Action.PROCESS)
        self.assertEqual(x.Receiver(secret).receive(BODY, latin1).action, x.Action.REJECT)

    def test_whitespace_is_part_of_the_secret(self):
        good = hmac_hex(SECRET.encode(), BODY)
        for padded in (" " + SECRET, SECRET + "\n", SECRET + " "):
            with self.subTest(secret=repr(padded)):
                with self.assertRaises(x.XborderError.Signature) as e:
                    x.verify(padded, BODY, good)
                self.assertEqual(e.exception.code, "SIGNATURE_MISMATCH")
                x.verify(padded, BODY, hmac_hex(padded.encode(), BODY))

    def test_empty_secret(self):
        for make in (lambda: x.Receiver(""), lambda: x.Receiver.with_secrets([]),
                     lambda: x.Receiver.with_secrets([SECRET, ""])):
            with self.assertRaises(x.XborderError.Signature) as e:
                make()
            self.assertEqual(e.exception.code, "EMPTY_SECRET")
        with self.assertRaises(x.XborderError.Signature) as e:
            x.verify("", BODY, "0" * 64)
        self.assertEqual(e.exception.code, "EMPTY_SECRET")


class Rotation(unittest.TestCase):
    """Several secrets only through an explicitly named list."""

    def test_any_listed_secret_verifies(self):
        old, new = "whsec_old", "whsec_new"
        for key in (old, new):
            sig = hmac_hex(key.encode(), BODY)
            x.verify_with_secrets([old, new], BODY, sig)
            x.verify_with_secrets((old, new), BODY, sig)
            rx = x.Receiver.with_secrets([old, new], window=10)
            self.assertEqual(rx.receive(BODY, sig).action, x.Action.PROCESS)
        with self.assertRaises(x.XborderError.Signature):
            x.verify_with_secrets([old, new], BODY, hmac_hex(b"w", BODY))

    def test_a_str_is_never_a_list_of_secrets(self):
        forged = hmac_hex(b"w", BODY)
        for call in (lambda: x.verify_with_secrets(SECRET, BODY, forged),
                     lambda: x.Receiver.with_secrets(SECRET)):
            with self.assertRaises(TypeError) as e:
                call()
            msg = str(e.exception)
            self.assertIn("`secrets`", msg)
            self.assertIn("Receiver(secret)", msg)
            self.assertIn("with_secrets([", msg)


# (callable, the valid arguments, {parameter: kind}). Kinds: str, opt_str, list, body, int, record.
BANKS = json.dumps({"data": [{"id": "b1"}]})
RULES = json.dumps({"data": {"country": "CO", "ownerType": "individual", "rules": {"requiredFields": []}}})
CASES = [
    (x.classify_event, {"name": "order:created"}, {"name": "str"}),
    (x.check_registration, {"events": ["order:created"], "existing_webhooks": 0},
     {"events": "list", "existing_webhooks": "int"}),
    (x.create_webhook_body, {"events": ["order:created"], "url": "https://a.test/h", "existing_webhooks": 0},
     {"events": "list", "url": "str", "existing_webhooks": "int"}),
    (x.event_matches, {"subscriptions": ["order:*"], "event": "order:created"},
     {"subscriptions": "list", "event": "str"}),
    (x.sign, {"secret": SECRET, "body": BODY}, {"secret": "str", "body": "body"}),
    (x.verify, {"secret": SECRET, "body": BODY, "signature": hmac_hex(SECRET.encode(), BODY)},
     {"secret": "str", "body": "body", "signature": "opt_str"}),
    (x.verify_with_secrets, {"secrets": [SECRET], "body": BODY, "signature": hmac_hex(SECRET.encode(), BODY)},
     {"secrets": "list", "body": "body", "signature": "opt_str"}),
    (x.decode_envelope, {"body": BODY, "limits": None}, {"body": "body", "limits": "record"}),
    (x.Receiver, {"secret": SECRET, "window": 10, "limits": None},
     {"secret": "str", "window": "int", "limits": "record"}),
    (x.Receiver.with_secrets, {"secrets": [SECRET], "window": 10, "limits": None},
     {"secrets": "list", "window": "int", "limits": "record"}),
    (lambda body, signature: x.Receiver(SECRET).receive(body, signature),
     {"body": BODY, "signature": hmac_hex(SECRET.encode(), BODY)}, {"body": "body", "signature": "opt_str"}),
    (lambda id: x.Receiver(SECRET).commit(id), {"id": "evt_1"}, {"id": "str"}),
    (x.validate_beneficiary, {"draft_json": "{}", "rules_json": None, "banks_country": "CO", "banks_json": BANKS},
     {"draft_json": "json", "rules_json": "document", "banks_country": "opt_str", "banks_json": "document"}),
    (x.required_fields, {"rules_json": None, "payment_type": "bank_account", "country": "US"},
     {"rules_json": "document", "payment_type": "str", "country": "str"}),
    (x.BeneficiaryValidator, {"rules_json": None, "banks_country": "CO", "banks_json": BANKS},
     {"rules_json": "document", "banks_country": "opt_str", "banks_json": "document"}),
    (lambda draft_json: x.BeneficiaryValidator().validate(draft_json), {"draft_json": "{}"},
     {"draft_json": "json"}),
    # The documents as the body (bytes) and as the parsed response.
    (x.validate_beneficiary, {"draft_json": "{}", "rules_json": RULES.encode(), "banks_country": "CO",
                              "banks_json": BANKS.encode()},
     {"rules_json": "document", "banks_json": "document", "banks_country": "opt_str"}),
    (x.BeneficiaryValidator, {"rules_json": json.loads(RULES), "banks_country": "CO",
                              "banks_json": bytearray(BANKS.encode())},
     {"rules_json": "document", "banks_country": "opt_str", "banks_json": "document"}),
    (x.required_fields, {"rules_json": memoryview(RULES.encode()), "payment_type": "bank_account",
                         "country": "CO"}, {"rules_json": "document"}),
    (x.list_query, {"params_json": "{}"}, {"params_json": "json"}),
    (x.page_info, {"response_json": '{"data":[],"total":0,"page":0,"pageSize":10}', "request": None},
     {"response_json": "json", "request": "record"}),
    # The same JSON parameters given as Python values.
    (x.validate_beneficiary, {"draft_json": {}, "rules_json": {"data": []}, "banks_country": "CO",
                              "banks_json": {"data": [{"id": "b1"}]}},
     {"draft_json": "json", "rules_json": "document", "banks_json": "document"}),
    (x.list_query, {"params_json": {"pageSize": 5}}, {"params_json": "json"}),
    (x.page_info, {"response_json": {"data": [], "total": 0, "page": 0, "pageSize": 10}, "request": None},
     {"response_json": "json"}),
    # The catalog, and the receivers that take one.
    (lambda name: x.Catalog().add_live(name), {"name": "order:rejected"}, {"name": "str"}),
    (lambda name: x.Catalog().add_wildcard(name), {"name": "fiat_deposit:*"}, {"name": "str"}),
    (lambda name: x.Catalog().classify(name), {"name": "order:rejected"}, {"name": "str"}),
    (lambda name: x.Catalog().is_live(name), {"name": "order:rejected"}, {"name": "str"}),
    (lambda events, existing_webhooks: x.Catalog().check_registration(events, existing_webhooks),
     {"events": ["order:created"], "existing_webhooks": 0}, {"events": "list", "existing_webhooks": "int"}),
    (lambda events, url, existing_webhooks: x.Catalog().create_webhook_body(events, url, existing_webhooks),
     {"events": ["order:created"], "url": "https://a.test/h", "existing_webhooks": 0},
     {"events": "list", "url": "str", "existing_webhooks": "int"}),
    (lambda subscriptions, event: x.Catalog().matches(subscriptions, event),
     {"subscriptions": ["order:*"], "event": "order:rejected"}, {"subscriptions": "list", "event": "str"}),
    (x.Receiver, {"secret": SECRET, "window": 10, "limits": None, "catalog": None}, {"catalog": "catalog"}),
    (x.Receiver.with_secrets, {"secrets": [SECRET], "window": 10, "limits": None, "catalog": None},
     {"catalog": "catalog"}),
    # The walker.
    (x.PageWalker, {"params_json": '{"pageSize": 2}'}, {"params_json": "json"}),
    (x.PageWalker, {"params_json": {"pageSize": 2}}, {"params_json": "json"}),
    (lambda response_json: x.PageWalker("{}").feed(response_json),
     {"response_json": '{"data":[],"total":0,"page":0,"pageSize":10}'}, {"response_json": "json"}),
    (lambda response_json: x.PageWalker({}).feed(response_json),
     {"response_json": {"data": [], "total": 0, "page": 0, "pageSize": 10}}, {"response_json": "json"}),
    # Claims, the store interface and the sans-IO task.
    (x.Claims, {"lease_ms": 100, "window_ms": None, "capacity": 10},
     {"lease_ms": "int", "window_ms": "opt_int", "capacity": "int"}),
    (x.Claims.with_store, {"store": "<store>", "lease_ms": 100, "window_ms": 50},
     {"store": "store", "lease_ms": "int", "window_ms": "opt_int"}),
    (lambda step, id, token, at_ms: x.Claims().step(step, id, token, at_ms),
     {"step": "claim", "id": "evt_1", "token": "r1", "at_ms": 0},
     {"step": "str", "id": "str", "token": "str", "at_ms": "int"}),
    (lambda step, outcome: x.Claims().reply(step, outcome),
     {"step": "claim", "outcome": x.ClaimOutcome.IN_PROGRESS}, {"step": "str", "outcome": "outcome"}),
    (x.claim_error_reply, {"code": "STORE_UNAVAILABLE"}, {"code": "str"}),
    (x.ClaimTask, {"step": "claim", "id": "evt_1", "token": "r1", "at_ms": 0, "lease_ms": 100, "window_ms": None},
     {"step": "str", "id": "str", "token": "str", "at_ms": "int", "lease_ms": "int", "window_ms": "opt_int"}),
    (lambda entry: started_task().loaded(entry), {"entry": "h:0:r9"}, {"entry": "opt_str"}),
    (lambda applied: loaded_task().swapped(applied), {"applied": True}, {"applied": "bool"}),
    (lambda message: report_failure(loaded_task(), message), {"message": "redis down"}, {"message": "str"}),
    # The asyncio driver of the task.
    (lambda **kw: asyncio.run(x.claim_step_async(**kw)),
     {"store": "<async store>", "step": "claim", "id": "evt_1", "token": "r1", "at_ms": 0,
      "lease_ms": 100, "window_ms": None},
     {"store": "async_store", "step": "str", "id": "str", "token": "str", "at_ms": "int",
      "lease_ms": "int", "window_ms": "opt_int"}),
]


def report_failure(task, message):
    """`task.failed(message)` always raises STORE_UNAVAILABLE: that is its right answer."""
    try:
        task.failed(message)
    except x.XborderError.Store as e:
        return e
    raise AssertionError("failed() returned")


def started_task():
    t = x.ClaimTask("claim", "evt_1", "r1", 0)
    t.start()
    return t


def loaded_task():
    t = started_task()
    t.loaded(None)
    return t

WRONG = {
    "str": [None, 5, 1.5, True, b"x", bytearray(b"x"), ["x"], {"x": 1}],
    "opt_str": [5, True, b"x", ["x"], {"x": 1}],
    "list": ["order:created", b"ab", bytearray(b"ab"), memoryview(b"ab"), 5, None, True,
             {"order:created": True}, (s for s in ["a"]), [5], [None], [b"x"]],
    "body": [None, 5, 1.5, True, ["x"], {"x": 1}, object()],
    "int": [None, True, False, "5", 1.5, [1]],
    "record": ["x", 5, {"max_body_bytes": 1, "max_depth": 2}, [1]],
    "opt_int": [True, "5", 1.5, [1]],
    "bool": [None, 1, 0, "true", [True]],
    # An enum member, never its text, its number or its name.
    "outcome": [None, "in_progress", "IN_PROGRESS", 1, True, [x.ClaimOutcome.STALE]],
    "catalog": ["order:rejected", ["order:rejected"], 5, True, {"order:rejected": "live"}, object()],
    "store": [None, "redis://localhost", 5, {}, object()],
    # A JSON parameter: its text (str), or a dict or a list of plain JSON data.
    "json": [None, 5, 1.5, True, b"{}", bytearray(b"{}"), memoryview(b"{}"), object(), {1: "x"},
             {"a": {2: "x"}}, {"a": object()}, [b"x"], {"a": {1, 2}}, {"a": (i for i in [1])}],
    "opt_json": [5, True, b"{}", object(), {1: "x"}, [object()], {"a": b"x"}],
    # A server document: its text (str), its body (bytes, bytearray, memoryview), its parsed JSON
    # (dict, list) or None; never a number, a bool, a set, another buffer, the body in chunks.
    "document": [5, 0, True, False, 1.5, object(), {"data"}, frozenset(), array.array("B", b"{}"),
                 (c for c in ["{}"]), {1: "x"}, [object()], {"a": b"x"}, [b'{"data": ', b"[]}"],
                 {"data": [{"id": b"b1"}]}, {"data": {"rules": {"requiredFields": {"x", "y"}}}}],
    # An asyncio store: async load and compare_and_set (a sync ClaimStore is for Claims.with_store).
    "async_store": [None, "redis://localhost", 5, {}, object(), "<sync store>"],
}


class WrongKinds(unittest.TestCase):
    """Every public parameter fed the wrong kind of value: a TypeError naming it, never a coercion."""

    def test_valid_arguments_work(self):
        for fn, args, _ in CASES:
            with self.subTest(fn=getattr(fn, "__qualname__", fn)):
                fn(**real(args))

    def test_wrong_kinds_raise_type_error_naming_the_parameter(self):
        for fn, args, kinds in CASES:
            args = real(args)
            for param, kind in kinds.items():
                for wrong in WRONG[kind]:
                    with self.subTest(fn=getattr(fn, "__qualname__", fn), param=param, value=repr(wrong)):
                        with self.assertRaises(TypeError) as e:
                            fn(**real({**args, param: wrong}))
                        self.assertIn("`%s`" % param, str(e.exception))

    def test_negative_counts_are_value_errors(self):
        with self.assertRaises(ValueError):
            x.check_registration(["order:created"], -1)
        with self.assertRaises(ValueError):
            x.Receiver(SECRET, -1)
        for make in (lambda: x.Claims(-1), lambda: x.Claims(window_ms=-1), lambda: x.Claims(capacity=-1),
                     lambda: x.Claims().step("claim", "e", "r", -1),
                     lambda: x.ClaimTask("claim", "e", "r", -1),
                     lambda: x.Catalog().check_registration(["order:created"], -1)):
            with self.assertRaises(ValueError):
                make()

    def test_a_store_must_be_a_claim_store(self):
        class DuckStore:  # the right methods, but not a ClaimStore: refused, never half-used
            def load(self, id):
                return None

            def compare_and_set(self, id, expected, new, ttl_ms):
                return True
        with self.assertRaises(TypeError) as e:
            x.Claims.with_store(DuckStore())
        self.assertIn("`store`", str(e.exception))
        self.assertIn("ClaimStore", str(e.exception))

    def test_body_kinds_mean_the_same_bytes(self):
        sig = hmac_hex(SECRET.encode(), BODY)
        for body in (BODY, bytearray(BODY), memoryview(BODY), BODY.decode("utf-8"),
                     array.array("B", BODY), memoryview(bytearray(BODY))[0:len(BODY)]):
            with self.subTest(kind=type(body).__name__):
                x.verify(SECRET, body, sig)
                self.assertEqual(x.sign(SECRET, body), sig)
                self.assertEqual(x.decode_envelope(body).id, "evt_1")
                self.assertEqual(x.Receiver(SECRET).receive(body, sig).action, x.Action.PROCESS)

    def test_a_wide_buffer_is_its_raw_bytes_not_its_item_count(self):
        wide = array.array("I", [0x64636261, 0x68676665])  # 8 bytes, 2 items
        raw = memoryview(wide).tobytes()
        self.assertEqual(x.sign(SECRET, wide), hmac_hex(SECRET.encode(), raw))

    def test_list_of_events_and_a_str_of_one(self):
        self.assertTrue(x.check_registration(["order:created"]).ok)
        self.assertTrue(x.event_matches(["order:*"], "order:created"))
        self.assertTrue(x.event_matches(("order:*",), "order:created"))
        with self.assertRaises(TypeError) as e:
            x.event_matches("order:*", "order:created")
        self.assertIn('["order:*"]', str(e.exception))


PLACEHOLDERS = {"<store>": lambda: DictStore(), "<async store>": lambda: AsyncDictStore(),
                "<sync store>": lambda: DictStore()}


def real(args):
    """The CASES arguments with the placeholder stores replaced by fresh ones."""
    return {k: (PLACEHOLDERS[v]() if isinstance(v, str) and v in PLACEHOLDERS else v)
            for k, v in args.items()}


def signed(event, id="evt_9"):
    body = json.dumps({"id": id, "event": event, "entity": {"id": "ord_1", "type": event.split(":")[0]}}).encode()
    return body, hmac_hex(SECRET.encode(), body)


class Catalogs(unittest.TestCase):
    """Names the provider sends before this release knows them: added by the host, then live."""

    def test_an_added_name_is_live_for_the_catalog_and_its_receivers(self):
        c = x.Catalog()
        self.assertEqual(c.classify("order:rejected").kind, x.EventKind.UNKNOWN)
        c.add_live("order:rejected")
        got = c.classify("order:rejected")
        self.assertEqual((got.kind, got.entity, got.action), (x.EventKind.LIVE, "order", "rejected"))
        self.assertTrue(c.is_live("order:rejected"))
        reg = c.check_registration(["order:rejected", "order:created", "order:rejected"])
        self.assertEqual((reg.ok, reg.events), (True, ["order:rejected", "order:created"]))
        self.assertIn('"order:rejected"', c.create_webhook_body(["order:rejected"], "https://a.test/h"))
        self.assertTrue(c.matches(["order:rejected"], "order:rejected"))
        # The free functions keep the built-in catalog.
        self.assertEqual(x.classify_event("order:rejected").kind, x.EventKind.UNKNOWN)
        self.assertEqual(x.check_registration(["order:rejected"]).rejected[0].reason, x.EventKind.UNKNOWN)
        body, sig = signed("order:rejected")
        for rx in (x.Receiver(SECRET, catalog=c), x.Receiver.with_secrets(["whsec_old", SECRET], catalog=c)):
            d = rx.receive(body, sig)
            self.assertEqual((d.action, d.envelope.event), (x.Action.PROCESS, "order:rejected"))
        self.assertEqual(x.Receiver(SECRET).receive(body, sig).action, x.Action.IGNORE)

    def test_the_receiver_keeps_the_catalog_it_was_given(self):
        c = x.Catalog()
        rx = x.Receiver(SECRET, catalog=c)
        c.add_live("fiat_deposit:rejected")
        body, sig = signed("fiat_deposit:rejected")
        self.assertEqual(rx.receive(body, sig).action, x.Action.IGNORE)
        self.assertEqual(x.Receiver(SECRET, catalog=c).receive(body, sig).action, x.Action.PROCESS)

    def test_wildcards(self):
        c = x.Catalog()
        self.assertFalse(c.check_registration(["fiat_deposit:*"]).ok)
        c.add_wildcard("fiat_deposit:*")
        self.assertEqual(c.classify("fiat_deposit:*").kind, x.EventKind.WILDCARD)
        self.assertTrue(c.check_registration(["fiat_deposit:*"]).ok)
        self.assertTrue(c.matches(["fiat_deposit:*"], "fiat_deposit:rejected"))
        self.assertFalse(c.is_live("fiat_deposit:*"))

    def test_a_bad_name_is_invalid_event_name(self):
        c = x.Catalog()
        for add, name in ((c.add_live, "Bad Name"), (c.add_live, "order:*"), (c.add_live, "order"),
                          (c.add_live, ""), (c.add_wildcard, "order:rejected"), (c.add_wildcard, "*:*")):
            with self.subTest(add=add.__name__, name=name):
                with self.assertRaises(x.XborderError.Catalog) as e:
                    add(name)
                self.assertEqual((e.exception.code, e.exception.error_code()), ("INVALID_EVENT_NAME",) * 2)
        self.assertEqual(c.classify("Bad Name").kind, x.EventKind.INVALID)


class Walker(unittest.TestCase):
    """All pages of a list that changes while it is walked."""

    def test_three_pages_with_a_record_pushed_down(self):
        records = [{"id": i, "n": n} for n, i in enumerate(["c", "b", "a", "z"])]
        queries, seen, drifts = [], [], []

        def serve(query):  # the server: newest first; a record arrives after the first page
            q = {k: v[0] for k, v in parse_qs(query).items()}
            page, size = int(q["page"]), int(q["pageSize"])
            if len(queries) == 2:
                records.insert(0, {"id": "d", "n": 9})
            data = records[page * size:(page + 1) * size]
            return json.dumps({"data": data, "total": len(records), "page": page, "pageSize": size})

        w = x.PageWalker(json.dumps({"pageSize": 2, "filters": {"status": "success"}}))
        while (query := w.next_query()) is not None:
            self.assertFalse(w.is_done())
            queries.append(query)
            step = w.feed(serve(query))
            seen += [json.loads(r) for r in step.records_json]
            drifts += [(d.code, d.count, d.previous_total, d.total) for d in step.drifts]
            self.assertEqual(step.info.page, len(queries) - 1)
        self.assertTrue(w.is_done())
        self.assertEqual([parse_qs(q)["page"] for q in queries], [["0"], ["1"], ["2"]])
        self.assertTrue(all(q.endswith("&status=success") for q in queries))
        # Every record but the one that arrived behind the walker, each once, as sent.
        self.assertEqual(sorted(r["id"] for r in seen), ["a", "b", "c", "z"])
        self.assertIn({"id": "a", "n": 2}, seen)
        self.assertIn(("REPEATED_RECORDS", 1, None, None), drifts)
        self.assertIn(("TOTAL_CHANGED", None, 4, 5), drifts)
        self.assertIn(("POSSIBLY_SKIPPED", 1, None, None), drifts)

    def test_errors_keep_code_and_field_and_a_bad_page_can_be_retried(self):
        with self.assertRaises(x.XborderError.Pagination) as e:
            x.PageWalker(json.dumps({"status": "x"}))
        self.assertEqual((e.exception.code, e.exception.field), ("UNKNOWN_PARAMETER", "status"))
        with self.assertRaises(x.XborderError.Json):
            x.PageWalker("{")
        w = x.PageWalker("{}")
        with self.assertRaises(x.XborderError.Pagination) as e:
            w.feed('{"total": 1}')
        self.assertEqual(e.exception.code, "MALFORMED_RESPONSE")
        self.assertEqual(w.next_query(), x.list_query("{}"))
        step = w.feed('{"data":[{"id":1},{"id":1},{"x":true}],"total":3,"page":0,"pageSize":10}')
        self.assertEqual([json.loads(r) for r in step.records_json], [{"id": 1}, {"x": True}])
        self.assertTrue(w.is_done())


class DictStore(x.ClaimStore):
    """A store written in Python: entry texts in a dict, compare-and-set under a lock."""

    def __init__(self):
        self.map = {}
        self.lock = threading.Lock()

    def load(self, id):
        with self.lock:
            return self.map.get(id)

    def compare_and_set(self, id, expected, new, ttl_ms):
        with self.lock:
            if self.map.get(id) != expected:
                return False
            if new is None:
                self.map.pop(id, None)
            else:
                self.map[id] = new
            return True


class AsyncDictStore:
    """The same store for asyncio: every call yields to the event loop first."""

    def __init__(self):
        self.map = {}

    async def load(self, id):
        await asyncio.sleep(0)
        return self.map.get(id)

    async def compare_and_set(self, id, expected, new, ttl_ms):
        await asyncio.sleep(0)
        if self.map.get(id) != expected:
            return False
        if new is None:
            self.map.pop(id, None)
        else:
            self.map[id] = new
        return True


async def claim_async(store, step, id, token, at_ms, **rules):
    """One step against an async store: the task decides, the host awaits its store."""
    task = x.ClaimTask(step, id, token, at_ms, **rules)
    need = task.start()
    while True:
        if isinstance(need, x.ClaimNeed.LOAD):
            need = task.loaded(await store.load(need.id))
        elif isinstance(need, x.ClaimNeed.COMPARE_AND_SET):
            need = task.swapped(await store.compare_and_set(need.id, need.expected, need.new, need.ttl_ms))
        else:
            return need.outcome


def outcome_or_code(call):
    try:
        return call().name.lower()
    except x.XborderError as e:
        return e.error_code()


def random_steps(seed, n=400):
    rng = random.Random(seed)
    at = 0
    steps = []
    for _ in range(n):
        at += rng.randrange(0, 30)
        steps.append((rng.choice(["claim", "claim", "complete", "release", "finish"]),
                      rng.choice(["evt_1", "evt_2", "evt_3", ""]), rng.choice(["r1", "r2", "r3", ""]), at))
    return steps


class ClaimsApi(unittest.TestCase):
    def test_the_built_in_and_a_python_store_and_an_async_task_agree(self):
        for seed in range(5):
            rules = {"lease_ms": 50, "window_ms": 80 if seed % 2 else None}
            builtin, mine, aio = x.Claims(**rules), x.Claims.with_store(DictStore(), **rules), AsyncDictStore()

            async def run():
                out = []
                for step in random_steps(seed):
                    a = outcome_or_code(lambda: builtin.step(*step))
                    b = outcome_or_code(lambda: mine.step(*step))
                    try:
                        c = (await claim_async(aio, *step, **rules)).name.lower()
                    except x.XborderError as e:
                        c = e.error_code()
                    out.append((a, b, c))
                return out
            results = asyncio.run(run())
            with self.subTest(seed=seed):
                self.assertTrue(all(a == b == c for a, b, c in results), [r for r in results if len(set(r)) > 1])
                kinds = {a for a, _, _ in results}
                self.assertTrue({"claimed", "in_progress", "completed", "stale", "INVALID_STEP"} <= kinds, kinds)

    def test_the_lifecycle_and_its_texts(self):
        c = x.Claims(lease_ms=30000, window_ms=None)
        self.assertEqual(c.step("claim", "evt_1", "r1", 0), x.ClaimOutcome.CLAIMED)
        self.assertEqual(c.step("claim", "evt_1", "r2", 10), x.ClaimOutcome.IN_PROGRESS)
        self.assertEqual(c.step("complete", "evt_1", "r1", 20), x.ClaimOutcome.COMPLETED)
        d = c.step("claim", "evt_1", "r3", 900)
        self.assertEqual((d, d.acknowledges()), (x.ClaimOutcome.DUPLICATE, True))
        self.assertFalse(x.ClaimOutcome.IN_PROGRESS.acknowledges())
        store = DictStore()
        mine = x.Claims.with_store(store, lease_ms=1000)
        mine.step("claim", "evt_1", "r1", 5)
        self.assertEqual(store.map, {"evt_1": "h:5:r1"})  # texts only, core's encoding
        mine.step("complete", "evt_1", "r1", 7)
        self.assertEqual(store.map, {"evt_1": "d:7"})

    def test_enums_print_as_the_vectors_spell_them(self):
        self.assertEqual(str(x.ClaimOutcome.IN_PROGRESS), "in_progress")
        self.assertEqual("%s %s" % (x.Action.PROCESS, x.EventKind.WILDCARD), "process wildcard")
        self.assertEqual(f"{x.IssueCode.INVALID_ROUTING_NUMBER}", "INVALID_ROUTING_NUMBER")
        self.assertEqual(str(x.FieldSource.RULES), "rules")
        for cls in (x.Action, x.ClaimOutcome, x.EventKind, x.FieldSource):
            for m in cls:
                self.assertEqual(str(m), m.name.lower(), m)
        for m in x.IssueCode:
            self.assertEqual(str(m), m.name, m)
        self.assertEqual(repr(x.ClaimOutcome.STALE), "<ClaimOutcome.STALE: 5>")
        # What core classifies, printed: the text a vector expects.
        self.assertEqual(str(x.classify_event("order:created").kind), "live")

    def test_replies_are_cores_table(self):
        for claims in (x.Claims(lease_ms=2500), x.Claims.with_store(DictStore(), lease_ms=2500)):
            for step in ("claim", "complete", "release"):
                got = {o.name: claims.reply(step, o) for o in x.ClaimOutcome}
                self.assertIsNone(got.pop("CLAIMED"))
                want = {"IN_PROGRESS": (503, 3), "DUPLICATE": (200, None), "COMPLETED": (200, None),
                        "RELEASED": (500, None), "STALE": (200 if step == "complete" else 500, None)}
                self.assertEqual({k: (r.status, r.retry_after_s) for k, r in got.items()}, want, step)
            with self.assertRaises(x.XborderError.Claim) as e:
                claims.reply("finish", x.ClaimOutcome.STALE)
            self.assertEqual((e.exception.code, e.exception.field), ("INVALID_STEP", "do"))
        self.assertEqual(x.Claims().reply("claim", x.ClaimOutcome.IN_PROGRESS).retry_after_s, 30)
        self.assertIn("retry_after_s=3", repr(x.Claims(lease_ms=2001).reply("claim", x.ClaimOutcome.IN_PROGRESS)))
        down = x.claim_error_reply("STORE_UNAVAILABLE")
        self.assertEqual((down.status, down.retry_after_s), (503, 1))
        for other in ("INVALID_STEP", "", "store_unavailable"):
            self.assertEqual((x.claim_error_reply(other).status, x.claim_error_reply(other).retry_after_s), (500, None))

    def test_invalid_steps_name_their_field(self):
        for claims in (x.Claims(), x.Claims.with_store(DictStore())):
            for args, field in ((("finish", "e", "r", 0), "do"), (("Claim", "e", "r", 0), "do"),
                                (("claim", "", "r", 0), "id"), (("claim", "e", "", 0), "token")):
                with self.subTest(args=args):
                    with self.assertRaises(x.XborderError.Claim) as e:
                        claims.step(*args)
                    self.assertEqual((e.exception.code, e.exception.field, e.exception.error_field()),
                                     ("INVALID_STEP", field, field))
        with self.assertRaises(x.XborderError.Claim) as e:
            x.ClaimTask("claim", "e", "", 0)
        self.assertEqual(e.exception.field, "token")

    def test_a_failing_store_is_store_unavailable(self):
        class Raising(DictStore):
            def __init__(self, exc, where):
                super().__init__()
                self.exc, self.where = exc, where

            def load(self, id):
                if self.where == "load":
                    raise self.exc
                return super().load(id)

            def compare_and_set(self, id, expected, new, ttl_ms):
                raise self.exc

        class Answers(DictStore):  # answers of the wrong kind: never coerced
            def __init__(self, loaded, swapped):
                super().__init__()
                self.loaded, self.swapped = loaded, swapped

            def load(self, id):
                return self.loaded

            def compare_and_set(self, id, expected, new, ttl_ms):
                return self.swapped

        stores = [Raising(ConnectionError("redis down"), "load"), Raising(RuntimeError("boom"), "cas"),
                  Raising(x.XborderError.Signature("EMPTY_SECRET", "not a store code"), "cas"),
                  Raising(x.XborderError.Store("STORE_UNAVAILABLE", "timeout"), "load"),
                  Answers(None, 1), Answers(None, "0"), Answers(None, None), Answers(b"h:0:r1", True),
                  Answers("not an entry", True), Answers(5, True)]
        for store in stores:
            with self.subTest(store=type(store).__name__, detail=vars(store).get("exc", vars(store).get("swapped"))):
                with self.assertRaises(x.XborderError.Store) as e:
                    x.Claims.with_store(store).step("claim", "evt_1", "r1", 0)
                self.assertEqual(e.exception.error_code(), "STORE_UNAVAILABLE")
        # The same store answering with the right kinds works: only the kinds above failed.
        ok = x.Claims.with_store(Answers(None, True)).step("claim", "evt_1", "r1", 0)
        self.assertEqual(ok, x.ClaimOutcome.CLAIMED)

    def test_two_threads_claiming_one_id_at_once_one_wins(self):
        for make in (lambda: x.Claims(), lambda: x.Claims.with_store(DictStore())):
            claims = make()
            for round_ in range(20):
                n = 8
                barrier = threading.Barrier(n)
                got = []

                def claim(token):
                    barrier.wait()
                    got.append(claims.step("claim", "evt_%d" % round_, token, 1000))
                threads = [threading.Thread(target=claim, args=("r%d" % i,)) for i in range(n)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                self.assertEqual(got.count(x.ClaimOutcome.CLAIMED), 1, got)
                self.assertEqual(got.count(x.ClaimOutcome.IN_PROGRESS), n - 1, got)

    def test_async_claims_race_on_one_event_loop(self):
        async def race():
            store = AsyncDictStore()
            got = await asyncio.gather(*(claim_async(store, "claim", "evt_1", "r%d" % i, 0) for i in range(6)))
            return store, got
        store, got = asyncio.run(race())
        self.assertEqual(got.count(x.ClaimOutcome.CLAIMED), 1, got)
        self.assertEqual(got.count(x.ClaimOutcome.IN_PROGRESS), 5, got)
        winner = store.map["evt_1"].split(":", 2)[2]
        self.assertEqual(asyncio.run(claim_async(store, "complete", "evt_1", winner, 5)), x.ClaimOutcome.COMPLETED)

    def test_the_task_reports_foreign_text_and_a_stray_answer(self):
        t = x.ClaimTask("claim", "evt_1", "r1", 0)
        self.assertEqual(t.start(), x.ClaimNeed.LOAD(id="evt_1"))
        with self.assertRaises(x.XborderError.Store):
            t.loaded("garbage")
        with self.assertRaises(x.XborderError.Store):
            x.ClaimTask("claim", "evt_1", "r1", 0).swapped(True)  # no compare-and-set was asked
        t = x.ClaimTask("claim", "evt_1", "r1", 0, lease_ms=100)
        t.start()
        need = t.loaded(None)
        self.assertIsInstance(need, x.ClaimNeed.COMPARE_AND_SET)
        self.assertEqual((need.id, need.expected, need.new), ("evt_1", None, "h:0:r1"))
        self.assertIsInstance(t.swapped(False), x.ClaimNeed.LOAD)  # somebody else was first: load again
        # The host's store call failed: core's code, the host's message; a late answer is refused.
        t.loaded(None)
        e = report_failure(t, "redis: connection refused")
        self.assertEqual(e.code, "STORE_UNAVAILABLE")
        self.assertIn("connection refused", e.detail)
        with self.assertRaises(x.XborderError.Store):
            t.swapped(True)


class Pagination(unittest.TestCase):
    def test_filters_and_errors_with_field(self):
        q = x.list_query(json.dumps({"sortOrder": "asc", "filters": {"status": "success", "archived": False}}))
        self.assertEqual(q, "page=0&pageSize=10&sortBy=createdAt&sortOrder=ASC&archived=false&status=success")
        with self.assertRaises(x.XborderError.Pagination) as e:
            x.list_query(json.dumps({"status": "success"}))
        self.assertEqual((e.exception.code, e.exception.field), ("UNKNOWN_PARAMETER", "status"))
        self.assertEqual(e.exception.error_field(), "status")
        with self.assertRaises(x.XborderError.Pagination) as e:
            x.list_query(json.dumps({"filters": {"status": ["a", "b"]}}))
        self.assertEqual((e.exception.code, e.exception.field), ("INVALID_FILTER", "status"))


DRAFT = {"name": "Ana Pérez", "paymentType": "bank_account", "country": "CO",
         "paymentInfo": {"bankId": "b9", "accountNumber": "123"}}
BANK_LIST = {"data": [{"id": "b1", "name": "Banco Uno"}]}
PAGE = {"data": [{"id": "ord_1", "n": 1.5}, {"id": "ord_2", "tags": ["a"]}], "total": 2, "page": 0,
        "pageSize": 10}


class NativeValues(unittest.TestCase):
    """Dicts and lists where the API takes JSON text: the same answers as the text, nothing coerced."""

    def test_a_dict_or_list_means_its_json_text(self):
        text = json.dumps
        self.assertEqual(x.validate_beneficiary(DRAFT, banks_country="CO", banks_json=BANK_LIST),
                         x.validate_beneficiary(text(DRAFT), banks_country="CO", banks_json=text(BANK_LIST)))
        v = x.validate_beneficiary(DRAFT, banks_country="CO", banks_json=BANK_LIST)
        self.assertIn(("paymentInfo.bankId", x.IssueCode.UNKNOWN_BANK), [(i.path, i.code) for i in v.issues])
        banks_list = [{"id": "b1"}]  # a list is taken as JSON too: core says what it makes of it
        self.assertEqual(x.validate_beneficiary(DRAFT, None, "CO", banks_list),
                         x.validate_beneficiary(text(DRAFT), None, "CO", text(banks_list)))
        self.assertIn(("", x.IssueCode.BANKS_UNREADABLE),  # the bare array: not the bank list
                      [(i.path, i.code) for i in x.validate_beneficiary(DRAFT, None, "CO", banks_list).issues])
        rules = {"data": {"country": "US", "ownerType": "individual", "rules": {"paymentTypes": [
            {"type": "bank_account", "requiredFields": [{"field": "accountType", "description": "Type"}]}]}}}
        self.assertEqual(x.required_fields(rules, "bank_account", "US"),
                         x.required_fields(text(rules), "bank_account", "US"))
        self.assertIn("paymentInfo.accountType", [f.path for f in x.required_fields(rules, "bank_account", "US")])
        self.assertEqual(x.validate_beneficiary(DRAFT, None, "CO", tuple(banks_list)),
                         x.validate_beneficiary(DRAFT, None, "CO", banks_list))  # a tuple is a list
        params = {"pageSize": 25, "sortOrder": "asc", "filters": {"status": "success", "archived": False}}
        self.assertEqual(x.list_query(params), x.list_query(text(params)))
        self.assertEqual(x.list_query(params), "page=0&pageSize=25&sortBy=createdAt&sortOrder=ASC"
                                               "&archived=false&status=success")
        self.assertEqual(x.page_info(PAGE), x.page_info(text(PAGE)))
        self.assertEqual(x.page_info(PAGE).total, 2)

    def test_errors_keep_their_codes(self):
        with self.assertRaises(x.XborderError.Pagination) as e:
            x.list_query({"status": "success"})
        self.assertEqual((e.exception.code, e.exception.field), ("UNKNOWN_PARAMETER", "status"))
        with self.assertRaises(x.XborderError.Pagination) as e:
            x.list_query([])  # a list is JSON, not list parameters: core's answer, core's code
        self.assertEqual((e.exception.code, e.exception.error_code()), ("UNKNOWN_PARAMETER",) * 2)
        with self.assertRaises(x.XborderError.Pagination) as e:
            x.page_info({"total": 1})
        self.assertEqual(e.exception.code, "MALFORMED_RESPONSE")
        with self.assertRaises(x.XborderError.Json):
            x.validate_beneficiary("{")  # the text form is unchanged

    def test_non_ascii_and_numbers_round_trip(self):
        w = x.PageWalker({"pageSize": 10})
        page = {"data": [{"id": "é", "amount": 1.25, "big": 2 ** 60}], "total": 1, "page": 0, "pageSize": 10}
        self.assertEqual(w.feed(page).records, page["data"])

    def test_values_json_cannot_hold_are_refused_with_the_parameter(self):
        for bad in ({"pageSize": float("nan")}, {"a": [float("inf")]}):
            with self.assertRaises(ValueError) as e:
                x.list_query(bad)
            self.assertIn("`params_json`", str(e.exception))
        with self.assertRaises(TypeError) as e:
            x.list_query({"filters": {1: "x"}})  # json.dumps would make the key "1"
        self.assertIn("`params_json`", str(e.exception))
        self.assertIn("$.filters", str(e.exception))
        deep = []
        for _ in range(20_000):  # deeper than json.dumps goes: refused, never a RecursionError
            deep = [deep]
        with self.assertRaises(ValueError) as e:
            x.page_info({"data": deep})
        self.assertIn("`response_json`", str(e.exception))
        with self.assertRaises(TypeError) as e:
            x.page_info({"data": deep, "x": object()})
        self.assertIn("$.x", str(e.exception))

    def test_a_walk_with_python_values(self):
        w = x.PageWalker({"pageSize": 2, "filters": {"status": "success"}})
        pages = {0: {"data": [{"id": 1}, {"id": 2}], "total": 3, "page": 0, "pageSize": 2},
                 1: {"data": [{"id": 3}], "total": 3, "page": 1, "pageSize": 2}}
        seen = []
        while (q := w.next_query()) is not None:
            step = w.feed(pages[int(parse_qs(q)["page"][0])])
            self.assertEqual(step.records, [json.loads(r) for r in step.records_json])
            seen += step.records
        self.assertEqual(seen, [{"id": 1}, {"id": 2}, {"id": 3}])

    def test_entity_data_as_python_values(self):
        body = b'{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order","data":{"amount":5,"tags":["a"]}}}'
        env = x.decode_envelope(body)
        self.assertEqual(env.data, {"amount": 5, "tags": ["a"]})
        self.assertEqual(env.data, json.loads(env.data_json))
        d = x.Receiver(SECRET).receive(body, hmac_hex(SECRET.encode(), body))
        self.assertEqual(d.envelope.data["amount"], 5)
        bare = x.decode_envelope(b'{"id":"evt_2","event":"order:created","entity":{"id":"o","type":"order"}}')
        self.assertIsNone(bare.data_json)
        self.assertIsNone(bare.data)
        with self.assertRaises(AttributeError):
            env.data = {}  # read-only: data_json is the one source

    def test_results_have_readable_reprs(self):
        d = x.Receiver(SECRET).receive(BODY, hmac_hex(SECRET.encode(), BODY))
        r = repr(d)
        self.assertTrue(r.startswith("Decision(action=Action.PROCESS, acknowledges=True, "), r)
        self.assertIn("envelope=Envelope(id='evt_1', event='order:created', kind=EventKind.LIVE", r)
        self.assertEqual(str(d), r)
        result = x.validate_beneficiary(DRAFT, banks_country="CO", banks_json=BANK_LIST)
        v = repr(result)
        bank = next(i for i in result.issues if i.code == x.IssueCode.UNKNOWN_BANK)
        self.assertIn("Issue(path='paymentInfo.bankId', code=IssueCode.UNKNOWN_BANK, message=%r, label=None)"
                      % bank.message, v)
        self.assertNotIn(" object at 0x", v)
        self.assertIn("total_pages=1", repr(x.page_info(PAGE)))
        t = x.ClaimTask("claim", "evt_1", "r1", 0, lease_ms=100)
        self.assertEqual(repr(t.start()), "ClaimNeed.LOAD(id='evt_1')")
        need = t.loaded(None)
        self.assertEqual(repr(need), "ClaimNeed.COMPARE_AND_SET(id='evt_1', expected=None, "
                                     "new='h:0:r1', ttl_ms=%d)" % need.ttl_ms)
        self.assertEqual(repr(t.swapped(True)), "ClaimNeed.DONE(outcome=ClaimOutcome.CLAIMED)")
        step = x.PageWalker({}).feed({"data": [{"id": 1}], "total": 1, "page": 0, "pageSize": 10})
        self.assertTrue(repr(step).startswith("WalkStep(records_json=[%r], info=PageInfo(total=1, "
                                              % step.records_json[0]), repr(step))

    def test_installed_package(self):
        import os
        import sys
        folder = os.path.dirname(x.__file__)
        if os.environ.get("XBORDER_INSTALLED"):
            self.assertTrue(x.__file__.startswith(sys.prefix) and "site-packages" in x.__file__, x.__file__)
            self.assertEqual(os.path.basename(x.__file__), "__init__.py")
            for f in ("py.typed", "__init__.pyi"):
                self.assertTrue(os.path.isfile(os.path.join(folder, f)), f)
            from importlib import metadata
            dist = metadata.distribution("xborder")
            self.assertRegex(dist.version, r"^\d+\.\d+\.\d+")
            shipped = {str(f) for f in dist.files}
            self.assertTrue({"xborder/__init__.py", "xborder/__init__.pyi", "xborder/py.typed"} <= shipped, shipped)
            self.assertTrue(any(f.startswith("xborder/libxborder_ffi.") for f in shipped), shipped)
            self.assertIn("## Verify and receive in an HTTP handler", dist.metadata.get_payload())
        self.assertTrue(any(f.startswith("libxborder_ffi.") for f in os.listdir(folder)))


# The documents as the server sends them (FORMAT.md "Documents"), the text of each response.
RULES_CO = json.dumps({"data": {"country": "CO", "ownerType": "individual", "rules": {
    "requiredFields": [{"field": "firstName", "description": "First name, as on the ID"}],
    "paymentTypes": [{"type": "bank_account", "description": "Bank transfer", "requiredFields": [
        {"field": "accountNumber", "description": "Número de cuenta"}]}]}}, "requestId": 20826},
    ensure_ascii=False)
BANKS_CO = json.dumps({"data": [{"id": "b1", "name": "Banco Uno"}], "requestId": 1})
DRAFT_CO = {"ownerType": "individual", "country": "CO", "paymentType": "bank_account",
            "paymentInfo": {"bankId": "b9"}}


def forms(text):
    """One response as a client may hold it: the text, the body's bytes (three kinds), the parsed
    JSON."""
    body = text.encode("utf-8")
    return {"str": text, "bytes": body, "bytearray": bytearray(body), "memoryview": memoryview(body),
            "memoryview slice": memoryview(b"[" + body + b"]")[1:-1], "dict": json.loads(text)}


def codes(validation):
    return sorted((i.path, str(i.code)) for i in validation.issues)


class Documents(unittest.TestCase):
    """The rules document and the bank list as the server sends them: any form a Python client
    holds one in means the same; one that cannot be read is reported by core, never ignored."""

    def test_issues_say_what_to_fix_and_carry_the_rules_label(self):
        v = x.validate_beneficiary(DRAFT_CO, RULES_CO, "CO", BANKS_CO)
        by_path = {i.path: i for i in v.issues}
        self.assertEqual(codes(v), [("firstName", "REQUIRED"), ("paymentInfo.accountNumber", "REQUIRED"),
                                    ("paymentInfo.bankId", "UNKNOWN_BANK")])
        self.assertEqual(by_path["firstName"].label, "First name, as on the ID")
        self.assertEqual(by_path["paymentInfo.accountNumber"].label, "Número de cuenta")
        self.assertIsNone(by_path["paymentInfo.bankId"].label)  # a fixed rule: no description
        for i in v.issues:
            self.assertIsInstance(i.message, str)
            self.assertTrue(i.message.strip(), i)
        self.assertNotEqual(by_path["firstName"].message, by_path["paymentInfo.bankId"].message)
        # The same field without a rules document: required by no document, so no label.
        fixed = x.validate_beneficiary({**DRAFT_CO, "paymentInfo": {}})
        self.assertEqual([(i.path, i.label) for i in fixed.issues], [("paymentInfo.bankId", None)])

    def test_an_iban_with_wrong_check_digits_says_so(self):
        draft = {"ownerType": "business", "country": "DE", "paymentType": "bank_account",
                 "paymentInfo": {"bankId": "b1", "accountNumber": "DE89 3704 0044 0532 0130 01"}}
        issue, = x.validate_beneficiary(draft).issues
        self.assertEqual((issue.path, issue.code), ("paymentInfo.accountNumber", x.IssueCode.INVALID_IBAN))
        self.assertIn("check digits", issue.message)
        self.assertIsNone(issue.label)
        draft["paymentInfo"]["accountNumber"] = "de89-3704-0044-0532-0130-00"  # read, not changed
        self.assertTrue(x.validate_beneficiary(draft).valid)
        self.assertEqual(draft["paymentInfo"]["accountNumber"], "de89-3704-0044-0532-0130-00")

    def test_every_account_detail_code_crosses(self):
        bad = [("DE", "accountNumber", "DE89370400440532013001", "INVALID_IBAN"),
               ("MX", "accountNumber", "032180000118359710", "INVALID_CLABE"),
               ("AR", "accountNumber", "2850590940090418135200", "INVALID_CBU"),
               ("AR", "bankDocumentNumber", "20123456789", "INVALID_CUIT"),
               ("FR", "bic", "BNPAQQPP", "INVALID_BIC"),
               ("IN", "ifscCode", "SBIN1001234", "INVALID_IFSC"),
               ("GB", "sortCode", "12-34-5", "INVALID_SORT_CODE"),
               ("AU", "bsbNumber", "12345", "INVALID_BSB"),
               ("CA", "branchCode", "0011234", "INVALID_BRANCH_CODE")]
        for country, field, value, code in bad:
            with self.subTest(code=code):
                draft = {"ownerType": "individual", "country": country, "paymentType": "bank_account",
                         "paymentInfo": {"bankId": "b1", field: value}}
                issue, = x.validate_beneficiary(draft).issues
                self.assertEqual((issue.path, str(issue.code)), ("paymentInfo." + field, code))
                self.assertIs(issue.code, x.IssueCode[code])
                self.assertTrue(issue.message)

    def test_the_text_the_body_and_the_parsed_response_are_one_document(self):
        want = x.validate_beneficiary(DRAFT_CO, RULES_CO, "CO", BANKS_CO)
        want_fields = x.required_fields(RULES_CO, "bank_account", "CO")
        self.assertIn(("paymentInfo.accountNumber", "Número de cuenta"), [(f.path, f.description) for f in want_fields])
        for (rk, rules), (bk, banks) in zip(forms(RULES_CO).items(), reversed(forms(BANKS_CO).items())):
            with self.subTest(rules=rk, banks=bk):
                self.assertEqual(x.validate_beneficiary(DRAFT_CO, rules, "CO", banks), want)
                self.assertEqual(x.validate_beneficiary(DRAFT_CO, rules_json=rules, banks_country="CO",
                                                        banks_json=banks), want)
                self.assertEqual(x.BeneficiaryValidator(rules, "CO", banks).validate(DRAFT_CO), want)
                self.assertEqual(x.required_fields(rules, "bank_account", "CO"), want_fields)
        # The `data` of each response, parsed (the rules unwrapped once): read as well.
        self.assertEqual(x.validate_beneficiary(DRAFT_CO, json.loads(RULES_CO)["data"], "CO", BANKS_CO), want)

    def test_a_validator_reads_the_documents_once_for_many_drafts(self):
        v = x.BeneficiaryValidator(RULES_CO.encode(), "CO", json.loads(BANKS_CO))
        good = {**DRAFT_CO, "firstName": "Ana", "paymentInfo": {"bankId": "b1", "accountNumber": "123"}}
        self.assertTrue(v.validate(good).valid)
        self.assertTrue(v.validate(json.dumps(good)).valid)
        self.assertEqual(v.validate(DRAFT_CO), x.validate_beneficiary(DRAFT_CO, RULES_CO, "CO", BANKS_CO))
        with self.assertRaises(x.XborderError.Json) as e:
            v.validate("{")
        self.assertEqual(e.exception.code, "MALFORMED_JSON")
        # Safe to share between threads: every thread gets the same answers.
        results = []
        threads = [threading.Thread(target=lambda: results.append(codes(v.validate(DRAFT_CO)))) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(results, [codes(v.validate(DRAFT_CO))] * 8)
        self.assertEqual(x.BeneficiaryValidator().validate(good),
                         x.validate_beneficiary(good))  # no document: the fixed rules

    def test_bytes_that_are_not_utf8_are_the_unreadable_issue(self):
        text_not_json = x.validate_beneficiary(DRAFT_CO, "{", "CO", "{")
        self.assertEqual(codes(text_not_json), [("", "BANKS_UNREADABLE"), ("", "RULES_UNREADABLE")])
        # A bad byte inside a JSON string: decoding with errors="replace" would make these parse.
        rules = RULES_CO.encode("utf-8").replace("ú".encode("utf-8"), b"\xfa")  # Latin-1
        banks = b'{"data": [{"id": "b9", "name": "Banco \xff"}]}'
        for kind in (bytes, bytearray, memoryview):
            with self.subTest(kind=kind.__name__):
                v = x.validate_beneficiary(DRAFT_CO, kind(rules), "CO", kind(banks))
                self.assertEqual(v, text_not_json)  # the same issues, with core's messages
                self.assertFalse(v.valid)
                self.assertEqual(x.BeneficiaryValidator(kind(rules), "CO", kind(banks)).validate(DRAFT_CO), v)
                with self.assertRaises(x.XborderError.Document) as e:
                    x.required_fields(kind(rules), "bank_account", "CO")
                self.assertEqual((e.exception.code, e.exception.error_code()), ("RULES_UNREADABLE",) * 2)
                self.assertIsNone(e.exception.error_field())
                self.assertIn("not JSON", e.exception.detail)
        # Only one document unreadable: the other is read and applied.
        v = x.validate_beneficiary(DRAFT_CO, RULES_CO, "CO", banks)
        self.assertEqual(codes(v), [("", "BANKS_UNREADABLE"), ("firstName", "REQUIRED"),
                                    ("paymentInfo.accountNumber", "REQUIRED")])
        # Text that is not Unicode (bytes decoded with "surrogateescape", a lone surrogate in the
        # parsed data) is no JSON text either.
        self.assertEqual(x.validate_beneficiary(DRAFT_CO, rules.decode("utf-8", "surrogateescape"), "CO",
                                                banks.decode("utf-8", "surrogateescape")), text_not_json)
        lone = x.validate_beneficiary(DRAFT_CO, None, "CO", {"data": [{"id": "b9", "name": "\udcff"}]})
        self.assertEqual(codes(lone), [("", "BANKS_UNREADABLE")])

    def test_nothing_given_is_ignored(self):
        # None is not given; JSON null, an empty text, an error body are given and unreadable.
        fixed = x.validate_beneficiary(DRAFT_CO)
        self.assertTrue(fixed.valid)  # no bank list: any bankId will do
        self.assertEqual(x.validate_beneficiary(DRAFT_CO, None, None, None), fixed)
        self.assertEqual(x.BeneficiaryValidator(None, None, None).validate(DRAFT_CO), fixed)
        for doc in ("null", "", b"", "[]", [], {}, '"{}"', '{"error": {"CODE": "UNAUTHORIZED"}}',
                    {"data": {"data": {"rules": {}}}}):
            with self.subTest(doc=doc):
                v = x.validate_beneficiary(DRAFT_CO, doc, "CO", doc)
                self.assertEqual(codes(v), [("", "BANKS_UNREADABLE"), ("", "RULES_UNREADABLE")])
                self.assertFalse(v.valid)
        # The body in chunks, as str: a JSON array of strings, not the bank list (never joined).
        chunks = [BANKS_CO[:10], BANKS_CO[10:]]
        self.assertIn(("", "BANKS_UNREADABLE"), codes(x.validate_beneficiary(DRAFT_CO, None, "CO", chunks)))
        # A bank list given without its country is for no country: reported, not applied.
        self.assertIn(("country", "BANKS_MISMATCH"), codes(x.validate_beneficiary(DRAFT_CO, None, None, BANKS_CO)))

    def test_wrong_kinds_of_document_name_the_parameter(self):
        calls = {
            "validate_beneficiary": lambda r, b: x.validate_beneficiary(DRAFT_CO, r, "CO", b),
            "BeneficiaryValidator": lambda r, b: x.BeneficiaryValidator(r, "CO", b),
            "required_fields": lambda r, b: x.required_fields(r, "bank_account", "CO"),
        }
        for name, call in calls.items():
            for wrong in WRONG["document"]:
                for param, args in (("rules_json", (wrong, BANKS_CO)), ("banks_json", (RULES_CO, wrong))):
                    if name == "required_fields" and param == "banks_json":
                        continue
                    with self.subTest(call=name, param=param, value=repr(wrong)):
                        with self.assertRaises(TypeError) as e:
                            call(*args)
                        self.assertIn("`%s`" % param, str(e.exception))
        with self.assertRaises(TypeError) as e:
            x.validate_beneficiary(DRAFT_CO, RULES_CO, ["CO"], BANKS_CO)  # a list for the country
        self.assertIn("`banks_country`", str(e.exception))
        with self.assertRaises(TypeError) as e:
            x.validate_beneficiary(json.dumps(DRAFT_CO).encode())  # the draft is not a document
        self.assertIn("`draft_json`", str(e.exception))

    def test_the_codes_are_formats(self):
        self.assertEqual({c.name for c in x.IssueCode}, {
            "REQUIRED", "INVALID_VALUE", "INVALID_ROUTING_NUMBER", "UNKNOWN_BANK", "RULES_MISMATCH",
            "BANKS_MISMATCH", "UNSUPPORTED_PAYMENT_TYPE", "RULES_UNREADABLE", "BANKS_UNREADABLE",
            "INVALID_IBAN", "INVALID_CLABE", "INVALID_CBU", "INVALID_CUIT", "INVALID_BIC", "INVALID_IFSC",
            "INVALID_SORT_CODE", "INVALID_BSB", "INVALID_BRANCH_CODE"})
        for c in x.IssueCode:
            self.assertEqual(str(c), c.name)  # core's text is FORMAT.md's code
        self.assertTrue(issubclass(x.XborderError.Document, x.XborderError))


class Stalled(unittest.TestCase):
    def test_a_server_that_ignores_page_ends_the_walk(self):
        page = {"data": [{"id": 1}, {"id": 2}], "total": 9, "hasNext": True}  # the same page, forever
        w = x.PageWalker({"pageSize": 2})
        queries, drifts, records = [], set(), []
        while (q := w.next_query()) is not None:
            self.assertLess(len(queries), 10, "the walk did not end")
            queries.append(q)
            step = w.feed(page)
            records += step.records
            drifts |= {d.code for d in step.drifts}
        self.assertTrue(w.is_done())
        self.assertEqual(records, page["data"])  # each record passed on once
        self.assertIn("STALLED", drifts)
        self.assertEqual(len(queries), 3)  # the first page, then two that brought nothing new


class AsyncClaims(unittest.TestCase):
    """claim_step_async: the asyncio driver of core's ClaimTask, what an asyncio receiver needs."""

    def test_the_lifecycle(self):
        async def run():
            store = AsyncDictStore()
            got = [await x.claim_step_async(store, "claim", "evt_1", "r1", 0),
                   await x.claim_step_async(store, "claim", "evt_1", "r2", 5),
                   await x.claim_step_async(store, "complete", "evt_1", "r1", 9),
                   await x.claim_step_async(store, "claim", "evt_1", "r3", 12)]
            return store, got
        store, got = asyncio.run(run())
        self.assertEqual(got, [x.ClaimOutcome.CLAIMED, x.ClaimOutcome.IN_PROGRESS,
                               x.ClaimOutcome.COMPLETED, x.ClaimOutcome.DUPLICATE])
        self.assertEqual(store.map, {"evt_1": "d:9"})
        with self.assertRaises(x.XborderError.Claim) as e:
            asyncio.run(x.claim_step_async(AsyncDictStore(), "finish", "evt_1", "r1", 0))
        self.assertEqual((e.exception.code, e.exception.field), ("INVALID_STEP", "do"))

    def test_it_agrees_with_the_sync_claims(self):
        for seed in range(3):
            rules = {"lease_ms": 50, "window_ms": 80 if seed % 2 else None}
            sync, store = x.Claims(**rules), AsyncDictStore()

            async def run():
                out = []
                for step in random_steps(seed, 200):
                    a = outcome_or_code(lambda: sync.step(*step))
                    try:
                        b = (await x.claim_step_async(store, *step, **rules)).name.lower()
                    except x.XborderError as e:
                        b = e.error_code()
                    out.append((a, b))
                return out
            results = asyncio.run(run())
            self.assertEqual([a for a, _ in results], [b for _, b in results])
            self.assertIn("claimed", {a for a, _ in results})

    def test_a_failing_or_wrong_answering_store_is_store_unavailable(self):
        class Failing(AsyncDictStore):
            def __init__(self, where, answer=None, exc=None):
                super().__init__()
                self.where, self.answer, self.exc = where, answer, exc

            async def load(self, id):
                if self.where == "load":
                    if self.exc:
                        raise self.exc
                    return self.answer
                return await super().load(id)

            async def compare_and_set(self, id, expected, new, ttl_ms):
                if self.exc:
                    raise self.exc
                return self.answer

        cases = [Failing("load", exc=ConnectionError("redis down")), Failing("cas", exc=OSError("reset")),
                 Failing("load", answer=b"h:0:r1"), Failing("load", answer=5), Failing("cas", answer=1),
                 Failing("cas", answer="0"), Failing("cas", answer=None)]
        for store in cases:
            with self.subTest(where=store.where, answer=store.answer, exc=store.exc):
                with self.assertRaises(x.XborderError.Store) as e:
                    asyncio.run(x.claim_step_async(store, "claim", "evt_1", "r1", 0))
                self.assertEqual(e.exception.error_code(), "STORE_UNAVAILABLE")
                self.assertIsNotNone(e.exception.__cause__)
                if store.exc:
                    self.assertIs(e.exception.__cause__, store.exc)
        ok = Failing("cas", answer=True)
        self.assertEqual(asyncio.run(x.claim_step_async(ok, "claim", "evt_1", "r1", 0)), x.ClaimOutcome.CLAIMED)

    def test_a_sync_store_is_refused_naming_store(self):
        with self.assertRaises(TypeError) as e:
            asyncio.run(x.claim_step_async(DictStore(), "claim", "evt_1", "r1", 0))
        self.assertIn("`store`", str(e.exception))
        self.assertIn("Claims.with_store", str(e.exception))


class LeanRuntime(unittest.TestCase):
    """runtime.py replaces uniffi's call and buffer helpers (issue 16): every primitive a record
    can hold crosses both ways unchanged, a buffer's leftovers are still an error, large and
    non-ASCII values and errors cross, and nothing leaks a Rust buffer across many calls."""

    def test_the_lean_helpers_are_installed(self):
        self.assertEqual(x._UniffiRustBufferBuilder.__slots__, ("buf",))
        self.assertEqual(x._UniffiRustBufferStream.__slots__, ("data", "len", "offset"))

    def test_every_primitive_round_trips(self):
        cases = [("i8", -128), ("i8", 127), ("u8", 255), ("i16", -32768), ("u16", 65535),
                 ("i32", -2**31), ("u32", 2**32 - 1), ("i64", -2**63), ("u64", 2**64 - 1),
                 ("float", 1.5), ("double", -2.25)]
        b = x._UniffiRustBufferBuilder()
        for kind, v in cases:
            getattr(b, "write_" + kind)(v)
        b.write(b"tail")
        rbuf = b.finalize()
        self.assertEqual(rbuf.len, sum({"i8": 1, "u8": 1, "i16": 2, "u16": 2, "i32": 4, "u32": 4,
                                        "i64": 8, "u64": 8, "float": 4, "double": 8}[k]
                                       for k, _ in cases) + 4)
        with rbuf.consume_with_stream() as s:
            for kind, v in cases:
                self.assertEqual(getattr(s, "read_" + kind)(), v, kind)
            self.assertEqual(s.read(4), b"tail")
            self.assertEqual(s.remaining(), 0)

    def test_leftover_bytes_and_short_reads_are_errors(self):
        b = x._UniffiRustBufferBuilder()
        b.write_i32(7)
        with self.assertRaises(RuntimeError):
            with b.finalize().consume_with_stream() as s:
                s.read_u8()
        b = x._UniffiRustBufferBuilder()
        b.write_u8(1)
        with self.assertRaises(x.InternalError):
            with b.finalize().consume_with_stream() as s:
                s.read_i32()

    def test_text_and_bodies_of_every_size_cross(self):
        for text in ["", "é", "order:" + "ü" * 5000, "\u0000x"]:
            self.assertEqual(x._UniffiFfiConverterString.lift(x._UniffiFfiConverterString.lower(text)), text)
        big = b'{"id":"evt_big","event":"order:created","entity":{"id":"o","type":"order","data":{"p":"' \
            + b"a" * 200_000 + b'"}}}'
        d = x.Receiver(SECRET).receive(big, hmac_hex(SECRET.encode(), big))
        self.assertEqual((d.action, d.envelope.id), (x.Action.PROCESS, "evt_big"))

    def test_many_calls_and_errors_in_a_row(self):
        rx = x.Receiver(SECRET)
        good = hmac_hex(SECRET.encode(), BODY)
        for i in range(2000):
            self.assertEqual(x.classify_event("order:created").kind, x.EventKind.LIVE)
            with self.assertRaises(x.XborderError.Signature):
                x.verify(SECRET, BODY, "0" * 64)
            self.assertEqual(rx.receive(BODY, good).envelope.id, "evt_1")


if __name__ == "__main__":
    unittest.main()
