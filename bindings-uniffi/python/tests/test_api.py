"""The public API of the installed package: what a Python user calls, with right values and with
a wrong kind for every public parameter (a TypeError or ValueError naming the parameter, raised
when called or built: never a silent conversion), errors with their FORMAT.md code, core's texts,
and the package's layout (hand-written modules; nothing generated in the public namespace)."""

import asyncio
import dataclasses  # noqa: F401
import inspect
import json
import os
import sys
from typing import Any, Callable, Dict, List, Optional, Tuple

import xborder as x

if os.environ.get("XBORDER_INSTALLED") and "site-packages" not in x.__file__:
    sys.exit("test_api.py: xborder was imported from %s, not from the installed wheel" % x.__file__)

failures: List[str] = []
checked = 0


def fail(why: str) -> None:
    failures.append(why)
    print("FAIL " + why)


def expect(what: str, got: Any, want: Any) -> None:
    global checked
    checked += 1
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


def raises(what: str, param: str, fn: Callable[[], Any], kinds: Tuple[type, ...] = (TypeError, ValueError)) -> None:
    """fn() raises one of kinds, its message starting with the parameter's name."""
    global checked
    checked += 1
    try:
        result = fn()
        if inspect.iscoroutine(result):
            asyncio.run(result)
    except kinds as e:
        if not str(e).startswith(param):
            fail("%s: the error does not name %s first: %s" % (what, param, e))
        return
    except Exception as e:  # noqa: BLE001
        fail("%s: raised %s (%s), want %s naming %s" % (what, type(e).__name__, e, kinds, param))
        return
    fail("%s: accepted a wrong %s" % (what, param))


SECRET = "whsec_test"
BODY = b'{"id":"evt_1","event":"order:created","entity":{"id":"ord_1","type":"order","data":{"a":1}}}'
SIG = x.sign(SECRET, BODY)


class Store(x.ClaimStore):
    def __init__(self) -> None:
        self.map: dict = {}

    def load(self, id: str, time: x.StoreTime) -> Optional[str]:
        return self.map.get(id)

    def compare_and_set(self, id: str, expected: Optional[str], new: Optional[str], time: x.StoreTime) -> bool:
        if self.map.get(id) != expected:
            return False
        if new is None:
            self.map.pop(id, None)
        else:
            self.map[id] = new
        return True


class AStore:
    def __init__(self) -> None:
        self.inner = Store()

    async def load(self, id: str, time: x.StoreTime) -> Optional[str]:
        return self.inner.load(id, time)

    async def compare_and_set(self, id: str, expected: Optional[str], new: Optional[str], time: x.StoreTime) -> bool:
        return self.inner.compare_and_set(id, expected, new, time)


def wrong_kinds() -> None:
    rx = x.Receiver(SECRET)
    cat = x.Catalog()
    claims = x.Claims()
    aclaims = x.AsyncClaims(AStore())
    task = x.ClaimTask("claim", "e", "t", 1)
    validator = x.BeneficiaryValidator()
    walker = x.PageWalker({})
    ok_persist = lambda env: None  # noqa: E731
    ok_get = lambda path: (200, {}, '{"data": [], "total": 0, "page": 0, "pageSize": 100}')  # noqa: E731
    recovery = x.CatchUp().recover()
    # (name, parameter, call) for every public parameter; each call has exactly one wrong value.
    table: List[Tuple[str, str, Callable[[], Any]]] = [
        ("sign", "secret", lambda: x.sign(b"k", BODY)),
        ("sign", "body", lambda: x.sign(SECRET, 12)),
        ("sign", "body", lambda: x.sign(SECRET, None)),
        ("verify", "secret", lambda: x.verify(None, BODY, SIG)),
        ("verify", "body", lambda: x.verify(SECRET, [1, 2], SIG)),
        ("verify", "signature", lambda: x.verify(SECRET, BODY, b"00")),
        ("verify_with_secrets", "secrets", lambda: x.verify_with_secrets(SECRET, BODY, SIG)),
        ("verify_with_secrets", "secrets", lambda: x.verify_with_secrets(b"k", BODY, SIG)),
        ("verify_with_secrets", "secrets", lambda: x.verify_with_secrets({"k": 1}, BODY, SIG)),
        ("verify_with_secrets", "secrets", lambda: x.verify_with_secrets([SECRET, 1], BODY, SIG)),
        ("verify_with_secrets", "body", lambda: x.verify_with_secrets([SECRET], object(), SIG)),
        ("verify_with_secrets", "signature", lambda: x.verify_with_secrets([SECRET], BODY, 1)),
        ("decode_envelope", "body", lambda: x.decode_envelope(1.5)),
        ("decode_envelope", "limits", lambda: x.decode_envelope(BODY, {"max_depth": 3})),
        ("DecodeLimits", "max_body_bytes", lambda: x.DecodeLimits(True, 64)),
        ("DecodeLimits", "max_body_bytes", lambda: x.DecodeLimits(-1, 64)),
        ("DecodeLimits", "max_depth", lambda: x.DecodeLimits(1024, "64")),
        ("DecodeLimits", "max_depth", lambda: x.DecodeLimits(1024, 2**64)),
        ("Receiver", "secret", lambda: x.Receiver([SECRET])),
        ("Receiver", "window", lambda: x.Receiver(SECRET, -1)),
        ("Receiver", "window", lambda: x.Receiver(SECRET, True)),
        ("Receiver", "window", lambda: x.Receiver(SECRET, 10.0)),
        ("Receiver", "limits", lambda: x.Receiver(SECRET, limits=64)),
        ("Receiver", "catalog", lambda: x.Receiver(SECRET, catalog=["order:x"])),
        ("Receiver.with_secrets", "secrets", lambda: x.Receiver.with_secrets(SECRET)),
        ("Receiver.with_secrets", "window", lambda: x.Receiver.with_secrets([SECRET], window=False)),
        ("Receiver.with_secrets", "limits", lambda: x.Receiver.with_secrets([SECRET], limits=(1, 2))),
        ("Receiver.with_secrets", "catalog", lambda: x.Receiver.with_secrets([SECRET], catalog="c")),
        ("Receiver.receive", "body", lambda: rx.receive(None, SIG)),
        ("Receiver.receive", "signature", lambda: rx.receive(BODY, 5)),
        ("Receiver.commit", "id", lambda: rx.commit(5)),
        ("handle_delivery", "receiver", lambda: x.handle_delivery(5, claims, BODY, SIG, ok_persist)),
        ("handle_delivery", "body", lambda: x.handle_delivery(rx, claims, 5, SIG, ok_persist)),
        ("handle_delivery", "headers", lambda: x.handle_delivery(rx, claims, BODY, 5, ok_persist)),
        ("handle_delivery", "headers", lambda: x.handle_delivery(rx, claims, BODY, {"X-Webhook-Signature": 5}, ok_persist)),
        ("handle_delivery", "persist", lambda: x.handle_delivery(rx, claims, BODY, SIG, "save")),
        ("handle_delivery", "token", lambda: x.handle_delivery(rx, claims, BODY, SIG, ok_persist, token=5)),
        ("handle_delivery", "clock", lambda: x.handle_delivery(rx, claims, BODY, SIG, ok_persist, clock=5)),
        ("handle_delivery", "claims", lambda: x.handle_delivery(rx, aclaims, BODY, SIG, ok_persist)),
        ("handle_delivery_async", "claims", lambda: x.handle_delivery_async(rx, claims, BODY, SIG, ok_persist)),
        ("handle_delivery_async", "receiver", lambda: x.handle_delivery_async(None, aclaims, BODY, SIG, ok_persist)),
        ("handle_delivery_async", "body", lambda: x.handle_delivery_async(rx, aclaims, {}, SIG, ok_persist)),
        ("handle_delivery_async", "headers", lambda: x.handle_delivery_async(rx, aclaims, BODY, 1.0, ok_persist)),
        ("handle_delivery_async", "persist", lambda: x.handle_delivery_async(rx, aclaims, BODY, SIG, None)),
        ("handle_delivery_async", "token", lambda: x.handle_delivery_async(rx, aclaims, BODY, SIG, ok_persist, token=b"t")),
        ("handle_delivery_async", "clock", lambda: x.handle_delivery_async(rx, aclaims, BODY, SIG, ok_persist, clock=0)),
        ("handle_delivery", "claims", lambda: x.handle_delivery(rx, AStore(), BODY, SIG, ok_persist)),
        ("handle_delivery", "claims", lambda: x.handle_delivery(rx, object(), BODY, SIG, ok_persist)),
        ("handle_delivery_async", "claims", lambda: x.handle_delivery_async(rx, Store(), BODY, SIG, ok_persist)),
        ("DeliveryHandling", "receiver", lambda: x.DeliveryHandling(b"k", claims, BODY, SIG, "t")),
        ("DeliveryHandling", "claims", lambda: x.DeliveryHandling(rx, Store(), BODY, SIG, "t")),  # type: ignore[arg-type]
        ("DeliveryHandling", "body", lambda: x.DeliveryHandling(rx, claims, 1, SIG, "t")),
        ("DeliveryHandling", "headers", lambda: x.DeliveryHandling(rx, claims, BODY, 1, "t")),
        ("DeliveryHandling", "token", lambda: x.DeliveryHandling(rx, claims, BODY, SIG, None)),
        ("DeliveryHandling.with_store_steps", "receiver", lambda: x.DeliveryHandling.with_store_steps(None, BODY, SIG, "t")),
        ("DeliveryHandling.with_store_steps", "body", lambda: x.DeliveryHandling.with_store_steps(rx, None, SIG, "t")),
        ("DeliveryHandling.with_store_steps", "headers", lambda: x.DeliveryHandling.with_store_steps(rx, BODY, 2, "t")),
        ("DeliveryHandling.with_store_steps", "token", lambda: x.DeliveryHandling.with_store_steps(rx, BODY, SIG, 3)),
        ("DeliveryHandling.with_store_steps", "lease_ms", lambda: x.DeliveryHandling.with_store_steps(rx, BODY, SIG, "t", lease_ms=-1)),
        ("DeliveryHandling.with_store_steps", "window_ms", lambda: x.DeliveryHandling.with_store_steps(rx, BODY, SIG, "t", window_ms="1")),
        ("DeliveryHandling.step", "at_ms", lambda: x.DeliveryHandling(rx, claims, BODY, SIG, "t").step(-1)),
        ("DeliveryHandling.loaded", "entry", lambda: x.DeliveryHandling(rx, claims, BODY, SIG, "t").loaded(5)),
        ("DeliveryHandling.swapped", "applied", lambda: x.DeliveryHandling(rx, claims, BODY, SIG, "t").swapped(1)),
        ("DeliveryHandling.store_failed", "message", lambda: x.DeliveryHandling(rx, claims, BODY, SIG, "t").store_failed(None)),
        ("DeliveryHandling.persisted", "ok", lambda: x.DeliveryHandling(rx, claims, BODY, SIG, "t").persisted("yes")),
        ("DeliveryHandling.committed", "ok", lambda: x.DeliveryHandling(rx, claims, BODY, SIG, "t").committed(None)),
        ("DeliveryHandling", "in_transaction", lambda: x.DeliveryHandling(rx, claims, BODY, SIG, "t", in_transaction=1)),
        ("DeliveryHandling.with_store_steps", "in_transaction", lambda: x.DeliveryHandling.with_store_steps(rx, BODY, SIG, "t", in_transaction="yes")),
        ("handle_delivery", "transaction", lambda: x.handle_delivery(rx, claims, BODY, SIG, ok_persist, transaction=object())),
        ("handle_delivery_async", "transaction", lambda: x.handle_delivery_async(rx, aclaims, BODY, SIG, ok_persist, transaction=True)),
        ("classify_event", "name", lambda: x.classify_event(None)),
        ("check_registration", "events", lambda: x.check_registration("order:created")),
        ("check_registration", "existing_webhooks", lambda: x.check_registration(["order:created"], -1)),
        ("check_registration", "existing_webhooks", lambda: x.check_registration(["order:created"], 2**32)),
        ("create_webhook_body", "events", lambda: x.create_webhook_body({"order:created"}.pop(), "https://x")),
        ("create_webhook_body", "url", lambda: x.create_webhook_body(["order:created"], None)),
        ("create_webhook_body", "existing_webhooks", lambda: x.create_webhook_body(["order:created"], "https://x", True)),
        ("event_matches", "subscriptions", lambda: x.event_matches("order:*", "order:created")),
        ("event_matches", "event", lambda: x.event_matches(["order:*"], 1)),
        ("Catalog.add_live", "name", lambda: cat.add_live(1)),
        ("Catalog.add_wildcard", "name", lambda: cat.add_wildcard(b"order:*")),
        ("Catalog.classify", "name", lambda: cat.classify(None)),
        ("Catalog.is_live", "name", lambda: cat.is_live(None)),
        ("Catalog.check_registration", "events", lambda: cat.check_registration("order:created")),
        ("Catalog.check_registration", "existing_webhooks", lambda: cat.check_registration([], "1")),
        ("Catalog.create_webhook_body", "events", lambda: cat.create_webhook_body(b"x", "u")),
        ("Catalog.create_webhook_body", "url", lambda: cat.create_webhook_body([], 1)),
        ("Catalog.create_webhook_body", "existing_webhooks", lambda: cat.create_webhook_body([], "u", None)),
        ("Catalog.matches", "subscriptions", lambda: cat.matches("order:*", "order:x")),
        ("Catalog.matches", "event", lambda: cat.matches([], None)),
        ("validate_beneficiary", "draft_json", lambda: x.validate_beneficiary(5)),
        ("validate_beneficiary", "draft_json", lambda: x.validate_beneficiary({1: "a"})),
        ("validate_beneficiary", "draft_json", lambda: x.validate_beneficiary({"a": float("nan")})),
        ("validate_beneficiary", "draft_json", lambda: x.validate_beneficiary({"a": object()})),
        ("validate_beneficiary", "rules_json", lambda: x.validate_beneficiary({}, 5)),
        ("validate_beneficiary", "banks_country", lambda: x.validate_beneficiary({}, None, 5)),
        ("validate_beneficiary", "banks_json", lambda: x.validate_beneficiary({}, None, "CO", 5)),
        ("required_fields", "rules_json", lambda: x.required_fields(5, "bank_account", "CO")),
        ("required_fields", "payment_type", lambda: x.required_fields(None, 5, "CO")),
        ("required_fields", "country", lambda: x.required_fields(None, "bank_account", None)),
        ("BeneficiaryValidator", "rules_json", lambda: x.BeneficiaryValidator(1.0)),
        ("BeneficiaryValidator", "banks_country", lambda: x.BeneficiaryValidator(None, ["CO"])),
        ("BeneficiaryValidator", "banks_json", lambda: x.BeneficiaryValidator(None, "CO", True)),
        ("BeneficiaryValidator.validate", "draft_json", lambda: validator.validate(None)),
        ("BeneficiaryValidator.form", "country", lambda: validator.form(None, "bank_account")),
        ("BeneficiaryValidator.form", "payment_type", lambda: validator.form("DE", ["bank_account"])),
        ("BeneficiaryValidator.form", "owner_type", lambda: validator.form("DE", "bank_account", 1)),
        ("normalize_beneficiary", "draft_json", lambda: x.normalize_beneficiary(b"{}")),
        ("normalize_beneficiary", "draft_json", lambda: x.normalize_beneficiary({"a": {1}})),
        ("check_account", "kind", lambda: x.check_account(None, "DE89")),
        ("check_account", "kind", lambda: x.check_account(x.IssueCode.INVALID_IBAN, "DE89")),
        ("check_account", "value", lambda: x.check_account("iban", None)),
        ("check_account", "value", lambda: x.check_account(x.AccountKind.IBAN, b"DE89")),
        ("beneficiary_form", "country", lambda: x.beneficiary_form(b"DE", "bank_account")),
        ("beneficiary_form", "payment_type", lambda: x.beneficiary_form("DE", None)),
        ("beneficiary_form", "owner_type", lambda: x.beneficiary_form("DE", "bank_account", True)),
        ("beneficiary_form", "rules_json", lambda: x.beneficiary_form("DE", "bank_account", rules_json=5)),
        ("beneficiary_form", "banks_country", lambda: x.beneficiary_form("DE", "bank_account", banks_country=["DE"])),
        ("beneficiary_form", "banks_json", lambda: x.beneficiary_form("DE", "bank_account", banks_json=1.5)),
        ("list_query", "params_json", lambda: x.list_query(None)),
        ("list_query", "params_json", lambda: x.list_query(b"{}")),
        ("page_info", "response_json", lambda: x.page_info(3)),
        ("page_info", "request", lambda: x.page_info({}, {"page": 0})),
        ("PageRequest", "page", lambda: x.PageRequest(page=-1)),
        ("PageRequest", "page", lambda: x.PageRequest(page=True)),
        ("PageRequest", "page_size", lambda: x.PageRequest(page_size="25")),
        ("PageWalker", "params_json", lambda: x.PageWalker(5)),
        ("PageWalker.feed", "response_json", lambda: walker.feed(5)),
        ("Claims", "lease_ms", lambda: x.Claims(-1)),
        ("Claims", "lease_ms", lambda: x.Claims(True)),
        ("Claims", "window_ms", lambda: x.Claims(1000, "7d")),
        ("Claims", "window_ms", lambda: x.Claims(1000, -5)),
        ("Claims", "capacity", lambda: x.Claims(1000, None, 1.5)),
        ("Claims.with_store", "store", lambda: x.Claims.with_store({})),
        ("Claims.with_store", "store", lambda: x.Claims.with_store(AStore())),
        ("Claims.with_store", "lease_ms", lambda: x.Claims.with_store(Store(), None)),
        ("Claims.with_store", "window_ms", lambda: x.Claims.with_store(Store(), 1000, False)),
        ("Claims.step", "step", lambda: claims.step(1, "e", "t", 1)),
        ("Claims.step", "id", lambda: claims.step("claim", None, "t", 1)),
        ("Claims.step", "token", lambda: claims.step("claim", "e", b"t", 1)),
        ("Claims.step", "at_ms", lambda: claims.step("claim", "e", "t", -1)),
        ("Claims.step", "at_ms", lambda: claims.step("claim", "e", "t", 1.0)),
        ("Claims.reply", "step", lambda: claims.reply(None, x.ClaimOutcome.STALE)),
        ("Claims.reply", "outcome", lambda: claims.reply("claim", "in_progress")),
        ("AsyncClaims", "store", lambda: x.AsyncClaims(Store())),
        ("AsyncClaims", "lease_ms", lambda: x.AsyncClaims(AStore(), "30s")),
        ("AsyncClaims", "window_ms", lambda: x.AsyncClaims(AStore(), 1000, 1.5)),
        ("AsyncClaims.step", "step", lambda: aclaims.step(None, "e", "t", 1)),
        ("AsyncClaims.step", "at_ms", lambda: aclaims.step("claim", "e", "t", "1")),
        ("AsyncClaims.reply", "outcome", lambda: aclaims.reply("claim", 1)),
        ("ClaimTask", "step", lambda: x.ClaimTask(1, "e", "t", 1)),
        ("ClaimTask", "id", lambda: x.ClaimTask("claim", 1, "t", 1)),
        ("ClaimTask", "token", lambda: x.ClaimTask("claim", "e", None, 1)),
        ("ClaimTask", "at_ms", lambda: x.ClaimTask("claim", "e", "t", None)),
        ("ClaimTask", "lease_ms", lambda: x.ClaimTask("claim", "e", "t", 1, -1)),
        ("ClaimTask", "window_ms", lambda: x.ClaimTask("claim", "e", "t", 1, 1, True)),
        ("ClaimTask.loaded", "entry", lambda: task.loaded(b"h:1:t")),
        ("ClaimTask.swapped", "applied", lambda: task.swapped(1)),
        ("ClaimTask.failed", "message", lambda: task.failed(None)),
        ("claim_error_reply", "code", lambda: x.claim_error_reply(503)),
        ("claim_step_async", "store", lambda: x.claim_step_async(Store(), "claim", "e", "t", 1)),
        ("claim_step_async", "at_ms", lambda: x.claim_step_async(AStore(), "claim", "e", "t", True)),
        ("claim_step_async", "step", lambda: x.claim_step_async(AStore(), None, "e", "t", 1)),
        ("claim_step_async", "id", lambda: x.claim_step_async(AStore(), "claim", 1, "t", 1)),
        ("claim_step_async", "token", lambda: x.claim_step_async(AStore(), "claim", "e", 1, 1)),
        ("claim_step_async", "lease_ms", lambda: x.claim_step_async(AStore(), "claim", "e", "t", 1, lease_ms=-1)),
        ("claim_step_async", "window_ms", lambda: x.claim_step_async(AStore(), "claim", "e", "t", 1, window_ms="x")),
        # api and catch_up (contract v4)
        ("read_api_error", "method", lambda: x.read_api_error(b"GET", 400)),
        ("read_api_error", "status", lambda: x.read_api_error("GET", "400")),
        ("read_api_error", "status", lambda: x.read_api_error("GET", 65536)),
        ("read_api_error", "headers", lambda: x.read_api_error("GET", 429, "Retry-After: 3")),
        ("read_api_error", "headers", lambda: x.read_api_error("GET", 429, {"Retry-After": 3})),
        ("read_api_error", "body", lambda: x.read_api_error("GET", 400, None, object())),
        ("CatchUp", "since", lambda: x.CatchUp(since=1)),
        ("CatchUp", "overlap_ms", lambda: x.CatchUp(overlap_ms=True)),
        ("CatchUp", "page_size", lambda: x.CatchUp(page_size=2.0)),
        ("CatchUp.feed", "page", lambda: x.CatchUp().feed(None)),
        ("CatchUp.answered", "status", lambda: x.CatchUp().answered(None, {}, "")),
        ("CatchUp.answered", "headers", lambda: x.CatchUp().answered(200, 1, "")),
        ("CatchUp.answered", "text", lambda: x.CatchUp().answered(200, {}, None)),
        ("Recovery.handling", "receiver", lambda: recovery.handling(None, claims, "t")),
        ("Recovery.handling", "claims", lambda: recovery.handling(rx, aclaims, "t")),
        ("Recovery.handling", "token", lambda: recovery.handling(rx, claims, 1)),
        ("Recovery.handling", "in_transaction", lambda: recovery.handling(rx, claims, "t", in_transaction=1)),
        ("Recovery.handling_with_store_steps", "receiver", lambda: recovery.handling_with_store_steps(1, "t")),
        ("Recovery.handling_with_store_steps", "token", lambda: recovery.handling_with_store_steps(rx, None)),
        ("Recovery.handling_with_store_steps", "lease_ms", lambda: recovery.handling_with_store_steps(rx, "t", -1)),
        ("Recovery.handling_with_store_steps", "window_ms", lambda: recovery.handling_with_store_steps(rx, "t", window_ms="x")),
        ("Recovery.handling_with_store_steps", "in_transaction", lambda: recovery.handling_with_store_steps(rx, "t", in_transaction=None)),
        ("Recovery.handled", "handling", lambda: recovery.handled(None)),
        ("catch_up", "get", lambda: x.catch_up("http://api", rx, claims, ok_persist)),
        ("catch_up", "receiver", lambda: x.catch_up(ok_get, None, claims, ok_persist)),
        ("catch_up", "claims", lambda: x.catch_up(ok_get, rx, aclaims, ok_persist)),
        ("catch_up", "persist", lambda: x.catch_up(ok_get, rx, claims, None)),
        ("catch_up", "since", lambda: x.catch_up(ok_get, rx, claims, ok_persist, since=5)),
        ("catch_up", "overlap_ms", lambda: x.catch_up(ok_get, rx, claims, ok_persist, overlap_ms="5")),
        ("catch_up", "page_size", lambda: x.catch_up(ok_get, rx, claims, ok_persist, page_size=False)),
        ("catch_up", "sleep", lambda: x.catch_up(ok_get, rx, claims, ok_persist, sleep=5)),
        ("catch_up", "token", lambda: x.catch_up(ok_get, rx, claims, ok_persist, token=5)),
        ("catch_up", "clock", lambda: x.catch_up(ok_get, rx, claims, ok_persist, clock=5)),
        ("catch_up", "transaction", lambda: x.catch_up(ok_get, rx, claims, ok_persist, transaction=5)),
        ("catch_up_async", "get", lambda: x.catch_up_async(None, rx, aclaims, ok_persist)),
        ("catch_up_async", "receiver", lambda: x.catch_up_async(ok_get, 1, aclaims, ok_persist)),
        ("catch_up_async", "claims", lambda: x.catch_up_async(ok_get, rx, claims, ok_persist)),
        ("catch_up_async", "persist", lambda: x.catch_up_async(ok_get, rx, aclaims, "p")),
        ("catch_up_async", "since", lambda: x.catch_up_async(ok_get, rx, aclaims, ok_persist, since=[])),
        ("catch_up_async", "overlap_ms", lambda: x.catch_up_async(ok_get, rx, aclaims, ok_persist, overlap_ms=1.0)),
        ("catch_up_async", "page_size", lambda: x.catch_up_async(ok_get, rx, aclaims, ok_persist, page_size="1")),
        ("catch_up_async", "sleep", lambda: x.catch_up_async(ok_get, rx, aclaims, ok_persist, sleep="s")),
        ("catch_up_async", "token", lambda: x.catch_up_async(ok_get, rx, aclaims, ok_persist, token=b"t")),
        ("catch_up_async", "clock", lambda: x.catch_up_async(ok_get, rx, aclaims, ok_persist, clock="c")),
        ("catch_up_async", "transaction", lambda: x.catch_up_async(ok_get, rx, aclaims, ok_persist, transaction=object())),
    ]
    for name, param, call in table:
        raises("%s(%s)" % (name, param), param, call)
    # Every public function and constructor's parameters appear in the table.
    covered = {(n.split(".")[-1] if "." in n else n, p) for n, p, _ in table}
    for name in x.__all__:
        obj = getattr(x, name)
        fns = []
        if inspect.isfunction(obj):
            fns.append((name, obj))
        elif (inspect.isclass(obj) and obj.__module__.startswith("xborder")
              and not issubclass(obj, BaseException)
              # results (records core gives back) are built by the package, not by users
              and (not hasattr(obj, "__dataclass_fields__") or name in ("DecodeLimits", "PageRequest"))):
            if obj.__init__ is not object.__init__ and "__init__" in vars(obj):
                fns.append((name, obj.__init__))
            for mname, m in vars(obj).items():
                if not mname.startswith("_") and (inspect.isfunction(m) or isinstance(m, classmethod)):
                    fns.append((mname, m.__func__ if isinstance(m, classmethod) else m))
        for fname, fn in fns:
            for p in list(inspect.signature(fn).parameters)[0:]:
                if p in ("self", "cls") or name in ("ClaimStore", "AsyncClaimStore", "Transaction",
                                                    "AsyncTransaction"):
                    continue
                if (fname, p) not in covered and (name, p) not in covered:
                    fail("no wrong-kind test for %s.%s(%s)" % (name, fname, p))


def behaviour() -> None:
    rx = x.Receiver(SECRET, window=0)
    d = rx.receive(memoryview(bytearray(BODY)), SIG)
    expect("receive a memoryview", (str(d.action), d.acknowledges), ("process", True))
    expect("envelope data", d.envelope.data if d.envelope else None, {"a": 1})
    expect("receive a str body", rx.receive(BODY.decode(), SIG).action, x.Action.PROCESS)
    try:
        x.verify(SECRET, BODY, "0" * 64)
        fail("a mismatch verified")
    except x.SignatureError as e:
        expect("signature error", (e.code, e.field, str(e).count("SIGNATURE_MISMATCH")), ("SIGNATURE_MISMATCH", None, 1))
    try:
        x.decode_envelope(b'{"id":1}')
    except x.EnvelopeError as e:
        expect("envelope error field", (e.code, e.field), ("INVALID_FIELD", "id"))
    try:
        x.create_webhook_body(["nope:x"], "https://x")
    except x.RegistrationError as e:
        expect("registration rejected", (e.code, [(r.event, str(r.reason)) for r in e.rejected]),
               ("VALIDATION_FAILED", [("nope:x", "unknown")]))
    expect("texts", [str(o) for o in x.ClaimOutcome], ["claimed", "in_progress", "duplicate", "completed", "released", "stale"])
    expect("repr", repr(x.Action.PROCESS), "<Action.PROCESS: 'process'>")
    expect("claim reply", x.claim_error_reply("STORE_UNAVAILABLE"), x.ClaimReply(503, 1))
    # Store answers of the wrong kind fail the step with STORE_UNAVAILABLE, the TypeError as cause.
    class Bad(Store):
        def load(self, id: str) -> Any:
            return b"h:1:t"
    try:
        x.Claims.with_store(Bad()).step("claim", "e", "t", 1)
        fail("bytes from load accepted")
    except x.StoreError as e:
        expect("wrong answer cause", (e.code, type(e.__cause__)), ("STORE_UNAVAILABLE", TypeError))
    # One call: claim, persist, complete; duplicate; persist failure released (500).
    claims = x.Claims(lease_ms=30_000)
    seen: List[str] = []
    r = x.handle_delivery(SECRET, claims, BODY, {"x-webhook-signature": SIG}, lambda e: seen.append(e.id))
    expect("handled", (r.status, r.headers, str(r.outcome), seen), (200, {}, "completed", ["evt_1"]))
    r = x.handle_delivery(SECRET, claims, BODY, SIG, lambda e: seen.append(e.id))
    expect("duplicate", (r.status, str(r.outcome), len(seen)), (200, "duplicate", 1))
    body2 = BODY.replace(b"evt_1", b"evt_2")
    def broken(env: x.Envelope) -> None:
        raise OSError("disk full")
    r = x.handle_delivery(SECRET, claims, body2, x.sign(SECRET, body2), broken)
    expect("persist failed", (r.status, str(r.outcome), type(r.persist_error), r.error_code, r.body, r.persisted),
           (500, "released", OSError, "PERSIST_FAILED", {"error": "PERSIST_FAILED"}, False))
    expect("persist's exception kept", str(r.persist_error), "disk full")
    # The retry takes the released event; the reply says it was persisted.
    r = x.handle_delivery(SECRET, claims, body2, x.sign(SECRET, body2), lambda e: seen.append(e.id))
    expect("retry after a failed persist", (r.status, str(r.outcome), r.persisted, r.error_code, r.body),
           (200, "completed", True, None, {"result": "completed"}))
    # Any sync store itself (with_store_steps driven here): a dict store, SQLite.
    own = Store()
    r = x.handle_delivery(SECRET, own, BODY, SIG, lambda e: seen.append(e.id), clock=lambda: 5)
    expect("own store handled", (r.status, str(r.outcome), len(own.map)), (200, "completed", 1))
    r = x.handle_delivery(SECRET, own, BODY, SIG, lambda e: seen.append(e.id), clock=lambda: 6)
    expect("own store duplicate", (r.status, str(r.outcome)), (200, "duplicate"))

    class Down(Store):
        def load(self, id: str) -> Optional[str]:
            raise ConnectionError("down")
    r = x.handle_delivery(SECRET, Down(), BODY, SIG, lambda e: fail("persisted with the store down"))
    expect("store down", (r.status, r.headers, r.error_code, r.outcome), (503, {"Retry-After": "1"}, "STORE_UNAVAILABLE", None))
    import sqlite3
    import xborder.sqlite as xs
    conn = xs.connect(":memory:")
    sq = xs.SqliteClaims(lease_ms=20_000)
    r = x.handle_delivery(SECRET, sq.store(conn), BODY, SIG, lambda e: None, clock=lambda: 100)
    expect("sqlite handled", (r.status, str(r.outcome)), (200, "completed"))
    r = x.handle_delivery(SECRET, sq.store(conn), BODY, SIG, lambda e: None, clock=lambda: 200)
    expect("sqlite duplicate", (r.status, str(r.outcome)), (200, "duplicate"))
    expect("sqlite row done at the step's time", conn.execute("SELECT entry FROM xborder_claims").fetchone()[0][:5], "d:100")
    sq.step(conn, "claim", "evt_9", "other", 1000)
    body9 = BODY.replace(b"evt_1", b"evt_9")
    r = x.handle_delivery(SECRET, sq.store(conn), body9, x.sign(SECRET, body9), lambda e: None, clock=lambda: 1001)
    expect("sqlite in progress: its lease", (r.status, r.headers), (503, {"Retry-After": "20"}))
    try:
        x.handle_delivery(SECRET, sq, BODY, SIG, lambda e: None)  # type: ignore[arg-type]
        fail("SqliteClaims accepted without a connection")
    except TypeError as e:
        expect("sql hint", "claims.store(conn)" in str(e), True)
    conn.close()
    # The handling act by act (what handle_delivery drives).
    h = x.DeliveryHandling.with_store_steps(SECRET, body9, x.sign(SECRET, body9), "t1", lease_ms=1000)
    expect("first act", h.next(), x.HandlingStep("claim", "evt_9"))
    expect("a load at the step's time", h.step(1), x.ClaimLoad("evt_9", x.StoreTime(1, None, None)))
    act = h.loaded(None)
    expect("a compare-and-set", type(act), x.ClaimCompareAndSet)
    # Core's times, for the store to write as given: a claim is kept two leases.
    expect("its time", act.time if isinstance(act, x.ClaimCompareAndSet) else None,
           x.StoreTime(1, 2000, 2001))
    act = h.swapped(True)
    expect("persist", type(act), x.HandlingPersist)
    try:
        h.step(2)
        fail("a step accepted while a persist is awaited")
    except x.ClaimError as e:
        expect("out of order", e.code, "INVALID_STEP")
    expect("release", h.persisted(False), x.HandlingStep("release", "evt_9"))
    expect("answer before the end", h.answer(), None)
    h.step(3)
    end = h.loaded(None)  # no entry (this test's store is none): the release is stale
    expect("the end", (type(end), h.answer() == end), (x.HandlingAnswer, True))
    a = h.answer()
    expect("answer", (a.status, a.code, a.persisted) if a else None, (500, "PERSIST_FAILED", False))
    expect("decision", str(h.decision.action), "process")
    # In a transaction, act by act: claim, persist (begin + the write), complete on the
    # transaction, commit; a failed commit releases.
    h = x.DeliveryHandling(SECRET, x.Claims(), body9, x.sign(SECRET, body9), "t2", in_transaction=True)
    expect("tx: no step yet", h.last_step(), None)
    expect("tx: claim", h.step(1), x.HandlingPersist(h.decision.envelope) if h.decision.envelope else None)
    expect("tx: last step", h.last_step(), x.HandlingStepResult("claim", x.ClaimOutcome.CLAIMED, None))
    expect("tx: complete", h.persisted(True), x.HandlingStep("complete", "evt_9"))
    expect("tx: commit", h.step(2), x.HandlingCommit("evt_9"))
    expect("tx: release after a failed commit", h.committed(False), x.HandlingStep("release", "evt_9"))
    end = h.step(3)
    # (x.Claims is not in any transaction: the completion stays, so the release is stale.)
    expect("tx: answer", (end.status, end.code, end.outcome, end.persisted) if isinstance(end, x.HandlingAnswer) else end,
           (500, "PERSIST_FAILED", x.ClaimOutcome.STALE, False))
    expect("tx: last step", h.last_step(), x.HandlingStepResult("release", x.ClaimOutcome.STALE, None))

    class Tx:
        """A transaction over a Store's map: rollback restores what begin saw."""

        def __init__(self, store: Store, fail_commit: bool) -> None:
            self.calls: List[str] = []
            self.store, self.fail_commit = store, fail_commit
            self.saved: Dict[str, str] = {}

        def begin(self) -> None:
            self.calls.append("begin")
            self.saved = dict(self.store.map)

        def commit(self) -> None:
            self.calls.append("commit")
            if self.fail_commit:
                raise OSError("commit refused")

        def rollback(self) -> None:
            self.calls.append("rollback")
            self.store.map = dict(self.saved)

    txc = Store()
    tx = Tx(txc, fail_commit=True)
    r = x.handle_delivery(SECRET, txc, body9, x.sign(SECRET, body9), lambda e: tx.calls.append("write"),
                          clock=lambda: 10, transaction=tx)
    expect("tx commit fails", (r.status, r.error_code, str(r.outcome), r.persisted, str(r.persist_error), tx.calls),
           (500, "PERSIST_FAILED", "released", False, "commit refused", ["begin", "write", "commit", "rollback"]))
    tx = Tx(txc, fail_commit=False)
    r = x.handle_delivery(SECRET, txc, body9, x.sign(SECRET, body9), lambda e: tx.calls.append("write"),
                          clock=lambda: 11, transaction=tx)
    expect("tx retry commits", (r.status, str(r.outcome), r.persisted, tx.calls),
           (200, "completed", True, ["begin", "write", "commit"]))

    def write_fails(e: x.Envelope) -> None:
        raise OSError("write refused")
    body8 = BODY.replace(b"evt_1", b"evt_8")
    tx = Tx(txc, fail_commit=False)
    r = x.handle_delivery(SECRET, txc, body8, x.sign(SECRET, body8), write_fails, clock=lambda: 12, transaction=tx)
    expect("tx write fails", (r.status, r.error_code, str(r.persist_error), tx.calls),
           (500, "PERSIST_FAILED", "write refused", ["begin", "rollback"]))

    class ATx:
        def __init__(self, store: Store) -> None:
            self.calls: List[str] = []
            self.store = store
            self.saved: Dict[str, str] = {}

        async def begin(self) -> None:
            self.calls.append("begin")
            self.saved = dict(self.store.map)

        async def commit(self) -> None:
            self.calls.append("commit")
            raise OSError("commit refused")

        async def rollback(self) -> None:
            self.calls.append("rollback")
            self.store.map = dict(self.saved)

    async def run_tx_async() -> None:
        store = AStore()
        atx = ATx(store.inner)
        r = await x.handle_delivery_async(SECRET, store, body9, x.sign(SECRET, body9), lambda e: atx.calls.append("write"),
                                          clock=lambda: 10, transaction=atx)
        expect("async tx commit fails", (r.status, r.error_code, str(r.outcome), atx.calls, len(store.inner.map)),
               (500, "PERSIST_FAILED", "released", ["begin", "write", "commit", "rollback"], 0))
        try:
            await x.handle_delivery_async(SECRET, store, body9, x.sign(SECRET, body9), lambda e: None,
                                          transaction=Tx(store.inner, False))  # type: ignore[arg-type]
        except TypeError as e:
            expect("a sync transaction in asyncio", "AsyncTransaction" in str(e), True)
        else:
            fail("a sync transaction accepted by handle_delivery_async")
    try:
        x.handle_delivery(SECRET, x.Claims(), body9, x.sign(SECRET, body9), lambda e: None,
                          transaction=ATx(Store()))  # type: ignore[arg-type]
    except TypeError as e:
        expect("an async transaction in sync", "handle_delivery_async" in str(e), True)
    else:
        fail("an async transaction accepted by handle_delivery")
    asyncio.run(run_tx_async())

    claims.step("claim", "evt_3", "other", 1)
    body3 = BODY.replace(b"evt_1", b"evt_3")
    r = x.handle_delivery(SECRET, claims, body3, x.sign(SECRET, body3), broken, clock=lambda: 2)
    expect("in progress", (r.status, r.headers, str(r.outcome)), (503, {"Retry-After": "30"}, "in_progress"))
    r = x.handle_delivery(SECRET, claims, BODY, "00" * 32, broken)
    expect("rejected", (r.status, r.error_code, r.body), (400, "SIGNATURE_MISMATCH", {"error": "SIGNATURE_MISMATCH"}))

    async def run_async() -> None:
        ac = x.AsyncClaims(AStore(), lease_ms=10_000)
        got: List[str] = []

        async def save(env: x.Envelope) -> None:
            got.append(env.id)
        r = await x.handle_delivery_async(SECRET, ac, BODY, SIG, save)
        expect("async handled", (r.status, str(r.outcome), got), (200, "completed", ["evt_1"]))
        await ac.step("claim", "evt_3", "other", 1)
        r = await x.handle_delivery_async(SECRET, ac, body3, x.sign(SECRET, body3), save, clock=lambda: 2)
        expect("async in progress: this lease", (r.status, r.headers), (503, {"Retry-After": "10"}))
        # An asyncio store itself, awaited; the persist's exception kept.
        raw = AStore()
        r = await x.handle_delivery_async(SECRET, raw, body2, x.sign(SECRET, body2), save, clock=lambda: 3)
        expect("async own store", (r.status, str(r.outcome), len(raw.inner.map)), (200, "completed", 1))

        async def broken_async(env: x.Envelope) -> None:
            raise OSError("db down")
        body4 = BODY.replace(b"evt_1", b"evt_4")
        r = await x.handle_delivery_async(SECRET, raw, body4, x.sign(SECRET, body4), broken_async)
        expect("async persist failed", (r.status, r.error_code, str(r.persist_error)), (500, "PERSIST_FAILED", "db down"))
    asyncio.run(run_async())
    # Layout: the public names are the hand-written ones; nothing generated leaks.
    for name in x.__all__:
        mod = getattr(getattr(x, name), "__module__", "xborder") or "xborder"
        if mod.startswith("_xborder_ffi"):
            fail("%s is the generated module's" % name)
    expect("no generated names", [n for n in dir(x) if n.startswith("_Uniffi")], [])


def accounts_and_forms() -> None:
    """check_account, the form model, normalize_beneficiary, issues' reason and params, and the
    form refusals, with the values core gives (issue 31)."""
    def check(kind: Any, value: str) -> Tuple[Any, ...]:
        c = x.check_account(kind, value)
        return (str(c.state), c.electronic, c.display, None if c.code is None else str(c.code),
                None if c.reason is None else str(c.reason), c.params, c.message is not None)
    P = x.AccountParams
    expect("check empty", check("iban", " - "), ("empty", "", "", None, None, None, False))
    expect("check incomplete: nothing red", check("iban", "de89 3704"),
           ("incomplete", "DE893704", "DE89 3704", None, None, None, False))
    expect("check complete", check(x.AccountKind.IBAN, "DE89 3704 0044 0532 0130 00"),
           ("complete", "DE89370400440532013000", "DE89 3704 0044 0532 0130 00", None, None, None, False))
    expect("check too long", check("iban", "DE8937040044053201300012"),
           ("invalid", "DE8937040044053201300012", "DE89 3704 0044 0532 0130 0012", "INVALID_IBAN",
            "LENGTH", P(expected=22, actual=24), True))
    expect("check check digits 00", check("iban", "DE00370400440532013000")[3:6],
           ("INVALID_IBAN", "CHECK_DIGITS", P()))
    expect("check IBAN country", check("iban", "QQ12")[:6],
           ("invalid", "QQ12", "QQ12", "INVALID_IBAN", "COUNTRY", P(country="QQ")))
    expect("check BIC country", check("bic", "DEUTQQ")[3:6], ("INVALID_BIC", "COUNTRY", P(country="QQ")))
    expect("check sort code typing", check("sort_code", "12345")[:3], ("incomplete", "12345", "12-34-5"))
    expect("check sort code layout", check("sort_code", "12a")[:5],
           ("invalid", "12A", "12-A", "INVALID_SORT_CODE", "LAYOUT"))
    expect("check CUIT type", check(x.AccountKind.CUIT, "99")[3:5], ("INVALID_CUIT", "TYPE"))
    expect("check CUIT display", check("cuit", "20123456786")[:3],
           ("complete", "20123456786", "20-12345678-6"))
    expect("check ABA", check("aba", "021-000-021")[:2], ("complete", "021000021"))
    c = x.check_account("iban", "DE89")
    expect("AccountCheck is frozen", _raises_any(lambda: setattr(c, "state", x.AccountState.EMPTY)), True)
    expect("AccountState texts", [str(s) for s in x.AccountState], ["empty", "incomplete", "complete", "invalid"])
    expect("AccountKind texts", [str(k) for k in x.AccountKind],
           ["iban", "bic", "clabe", "cbu", "cuit", "ifsc", "sort_code", "bsb", "ca_branch", "aba"])
    expect("every kind by its name", [x.check_account(str(k), "").state for k in x.AccountKind],
           [x.AccountState.EMPTY] * 10)
    expect("Reason texts", [str(r) for r in x.Reason], ["LAYOUT", "COUNTRY", "LENGTH", "TYPE", "CHECK_DIGITS"])
    for name in ("IBAN", "swift", ""):
        try:
            x.check_account(name, "DE89")
            fail("check_account(%r) accepted an unknown kind" % name)
        except x.FormError as e:
            expect("unknown kind %r" % name, (e.code, e.field, isinstance(e, x.XborderError)),
                   ("UNKNOWN_ACCOUNT_KIND", None, True))

    # Issues carry reason and params.
    draft: Dict[str, Any] = {
        "ownerType": "business", "country": "DE", "paymentType": "bank_account",
        "paymentInfo": {"bankId": "b1", "accountNumber": "de89 3704 0044 0532 0130 001",
                        "bic": "DEUTQQFF"}}
    got = sorted((i.path, str(i.code), None if i.reason is None else str(i.reason), i.params)
                 for i in x.validate_beneficiary(draft).issues)
    expect("issue reasons", got, [
        ("paymentInfo.accountNumber", "INVALID_IBAN", "LENGTH", P(expected=22, actual=23)),
        ("paymentInfo.bic", "INVALID_BIC", "COUNTRY", P(country="QQ"))])
    required = x.validate_beneficiary({"country": "DE"}).issues[0]
    expect("no reason for REQUIRED", (str(required.code), required.reason, required.params),
           ("REQUIRED", None, P()))

    # normalize_beneficiary: the kind given back, account details in electronic form, idempotent.
    once = x.normalize_beneficiary(draft)
    expect("normalize dict", once["paymentInfo"],
           {"bankId": "b1", "accountNumber": "DE893704004405320130001", "bic": "DEUTQQFF"})
    expect("normalize leaves the rest", {k: v for k, v in once.items() if k != "paymentInfo"},
           {k: v for k, v in draft.items() if k != "paymentInfo"})
    expect("normalize twice", x.normalize_beneficiary(once), once)
    expect("normalize leaves the input", draft["paymentInfo"]["accountNumber"], "de89 3704 0044 0532 0130 001")
    text = '{"country":"GB","paymentType":"bank_account","paymentInfo":{"sortCode":"12-34-56"}}'
    out = x.normalize_beneficiary(text)
    expect("normalize text", (type(out), json.loads(out)["paymentInfo"]), (str, {"sortCode": "123456"}))
    expect("normalize text twice", x.normalize_beneficiary(out), out)
    expect("normalize -- stays", x.normalize_beneficiary(
        {"country": "US", "paymentType": "bank_account", "paymentInfo": {"routingNumber": "--"}})["paymentInfo"],
        {"routingNumber": "--"})
    expect("normalize a list", x.normalize_beneficiary([1, "a"]), [1, "a"])
    try:
        x.normalize_beneficiary("{")
        fail("normalize accepted text that is not JSON")
    except x.JsonError as e:
        expect("normalize not JSON", e.code, "MALFORMED_JSON")

    # The form model.
    banks = {"data": [{"id": "b1", "name": "Commerzbank"}, {"id": "b2"}]}
    fields = x.beneficiary_form("DE", "bank_account", banks_country="DE", banks_json=banks)
    expect("form DE", [(f.path, f.required, str(f.source), str(f.input),
                        None if f.account is None else str(f.account), f.length) for f in fields], [
        ("paymentInfo", True, "fixed", "group", None, None),
        ("paymentInfo.bankId", True, "fixed", "choice", None, None),
        ("paymentInfo.accountNumber", False, "country", "text", "iban", x.AccountLength(15, 34)),
        ("paymentInfo.bic", False, "country", "text", "bic", x.AccountLength(8, 11))])
    expect("form options", fields[1].options,
           (x.FormOption("b1", "Commerzbank"), x.FormOption("b2", "b2")))
    expect("form labels", all(f.label for f in fields), True)
    us = x.BeneficiaryValidator().form("US", "bank_account")
    expect("form US", [(f.path, f.account, f.options) for f in us], [
        ("paymentInfo", None, ()), ("paymentInfo.routingNumber", x.AccountKind.ABA, ()),
        ("paymentInfo.accountNumber", None, ())])
    rules = {"data": {"country": "MX", "ownerType": "individual", "rules": {
        "requiredFields": [{"field": "firstName", "description": "Nombre"}],
        "paymentTypes": [{"type": "spei", "requiredFields": [
            {"field": "accountNumber", "description": "CLABE interbancaria"}]}]}}}
    mx = x.BeneficiaryValidator(json.dumps(rules)).form("MX", "spei", "individual")
    expect("form from rules", [(f.path, f.required, str(f.source), f.label) for f in mx], [
        ("firstName", True, "rules", "Nombre"), ("paymentInfo", True, "fixed", "Payment details"),
        ("paymentInfo.accountNumber", True, "rules", "CLABE interbancaria")])
    expect("form rules account", (mx[2].account, mx[2].length), (x.AccountKind.CLABE, x.AccountLength(18, 18)))
    refusals: List[Tuple[str, Callable[[], Any], Tuple[str, Optional[str]]]] = [
        ("country lower case", lambda: x.beneficiary_form("de", "bank_account"), ("INVALID_VALUE", "country")),
        ("empty payment type", lambda: x.beneficiary_form("DE", ""), ("INVALID_VALUE", "paymentType")),
        ("owner type", lambda: x.beneficiary_form("DE", "bank_account", "robot"), ("INVALID_VALUE", "ownerType")),
        ("rules unreadable", lambda: x.beneficiary_form("DE", "bank_account", rules_json="{}"), ("RULES_UNREADABLE", None)),
        ("rules of MX", lambda: x.beneficiary_form("DE", "spei", rules_json=rules), ("RULES_MISMATCH", None)),
        ("rules of another owner", lambda: x.beneficiary_form("MX", "spei", "business", rules_json=rules),
         ("RULES_MISMATCH", None)),
        ("banks unreadable", lambda: x.beneficiary_form("DE", "bank_account", None, None, "DE", []), ("BANKS_UNREADABLE", None)),
        ("banks of FR", lambda: x.beneficiary_form("DE", "bank_account", banks_country="FR", banks_json=banks),
         ("BANKS_MISMATCH", None)),
        ("validator's banks of FR", lambda: x.BeneficiaryValidator(None, "FR", banks).form("DE", "bank_account"),
         ("BANKS_MISMATCH", None)),
    ]
    for what, call, want in refusals:
        try:
            call()
            fail("form refusal %s: a form was built" % what)
        except x.FormError as e:
            expect("form refusal " + what, (e.code, e.field), want)


def _raises_any(fn: Callable[[], Any]) -> bool:
    try:
        fn()
    except Exception:  # noqa: BLE001
        return True
    return False


def main() -> int:
    wrong_kinds()
    behaviour()
    accounts_and_forms()
    print("api: %d checks, %d failed" % (checked, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
