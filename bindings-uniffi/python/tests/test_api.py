"""The Python binding's own tests: what a Python user calls, with right and wrong values.

Run by bindings-uniffi/test.sh with the built module on PYTHONPATH
(bindings-uniffi/dist/python). Issue 12: a `str` secret was read as one secret per character,
so a body signed with the key "w" was accepted for the secret "whsec_test".
"""
import array
import hashlib
import hmac
import json
import unittest

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
     {"draft_json": "str", "rules_json": "opt_str", "banks_country": "opt_str", "banks_json": "opt_str"}),
    (x.required_fields, {"rules_json": None, "payment_type": "bank_account", "country": "US"},
     {"rules_json": "opt_str", "payment_type": "str", "country": "str"}),
    (x.list_query, {"params_json": "{}"}, {"params_json": "str"}),
    (x.page_info, {"response_json": '{"data":[],"total":0,"page":0,"pageSize":10}', "request": None},
     {"response_json": "str", "request": "record"}),
]

WRONG = {
    "str": [None, 5, 1.5, True, b"x", bytearray(b"x"), ["x"], {"x": 1}],
    "opt_str": [5, True, b"x", ["x"], {"x": 1}],
    "list": ["order:created", b"ab", bytearray(b"ab"), memoryview(b"ab"), 5, None, True,
             {"order:created": True}, (s for s in ["a"]), [5], [None], [b"x"]],
    "body": [None, 5, 1.5, True, ["x"], {"x": 1}, object()],
    "int": [None, True, False, "5", 1.5, [1]],
    "record": ["x", 5, {"max_body_bytes": 1, "max_depth": 2}, [1]],
}


class WrongKinds(unittest.TestCase):
    """Every public parameter fed the wrong kind of value: a TypeError naming it, never a coercion."""

    def test_valid_arguments_work(self):
        for fn, args, _ in CASES:
            with self.subTest(fn=getattr(fn, "__qualname__", fn)):
                fn(**args)

    def test_wrong_kinds_raise_type_error_naming_the_parameter(self):
        for fn, args, kinds in CASES:
            for param, kind in kinds.items():
                for wrong in WRONG[kind]:
                    with self.subTest(fn=getattr(fn, "__qualname__", fn), param=param, value=repr(wrong)):
                        with self.assertRaises(TypeError) as e:
                            fn(**{**args, param: wrong})
                        self.assertIn("`%s`" % param, str(e.exception))

    def test_negative_counts_are_value_errors(self):
        with self.assertRaises(ValueError):
            x.check_registration(["order:created"], -1)
        with self.assertRaises(ValueError):
            x.Receiver(SECRET, -1)

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


if __name__ == "__main__":
    unittest.main()
