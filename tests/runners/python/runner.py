"""Conformance runner for the Python binding: the `xborder` package users import (the hand-written
layer over uniffi's generated module), through its public API only; run.sh runs it against the
installed wheel, or against bindings-uniffi/dist/python.

Feeds every vector of every folder in XBORDER_VECTOR_DIRS, and of each file in
XBORDER_VECTOR_FILES (contract v4's accounts.json, forms.json and api.json), to the module's public API and
compares per tests/runners/CONTRACT.md (FORMAT.md's v4 matching rules).
"""
import asyncio
import base64
import json
import os
import sys
import threading
from collections import Counter

import xborder as x

if os.environ.get("XBORDER_INSTALLED") and "site-packages" not in x.__file__:
    sys.exit("runner.py: xborder was imported from %s, not from the installed wheel" % x.__file__)


def body_bytes(inp):
    if "bodyBase64" in inp:
        return base64.b64decode(inp["bodyBase64"])
    return inp.get("body", "").encode("utf-8")


def dumps(value):
    return json.dumps(value, ensure_ascii=False)


def err(e):
    return {"ok": False, "error": e.code}


def op_classify(inp):
    c = x.classify_event(inp["name"])
    out = {"kind": str(c.kind)}
    if c.entity is not None:
        out["entity"] = c.entity
    if c.action is not None:
        out["action"] = c.action
    return out


def op_check_registration(inp):
    r = x.check_registration(inp["events"], inp.get("existingWebhooks") or 0)
    if r.ok:
        return {"ok": True, "events": r.events}
    return {"ok": False, "code": r.code,
            "rejected": [{"event": j.event, "reason": str(j.reason)} for j in r.rejected]}


def op_matches(inp):
    return {"matches": x.event_matches(inp["subscriptions"], inp["event"])}


def op_sign(inp):
    try:
        return {"signature": x.sign(inp["secret"], body_bytes(inp))}
    except x.XborderError as e:
        return err(e)


def op_verify(inp):
    try:
        if "secrets" in inp:
            x.verify_with_secrets(inp["secrets"], body_bytes(inp), inp.get("signature"))
        elif inp.get("secret") is not None:
            x.verify(inp["secret"], body_bytes(inp), inp.get("signature"))
        else:
            x.verify_with_secrets([], body_bytes(inp), inp.get("signature"))
        return {"ok": True}
    except x.XborderError as e:
        return err(e)


def envelope_out(env):
    out = {"ok": True, "id": env.id, "event": env.event, "kind": str(env.kind),
           "entityId": env.entity_id, "entityType": env.entity_type}
    if env.data_json is not None:
        out["data"] = json.loads(env.data_json)
    return out


def op_decode(inp):
    try:
        return envelope_out(x.decode_envelope(body_bytes(inp)))
    except x.EnvelopeError as e:
        out = err(e)
        if e.field is not None:
            out["field"] = e.field
        return out


def op_receive(inp):
    try:
        rx = x.Receiver(inp["secret"], inp.get("window", 10000))
    except x.XborderError as e:
        return {"decisions": [{"action": "reject", "error": e.code} for _ in inp["deliveries"]]}
    decisions = []
    for d in inp["deliveries"]:
        dec = rx.receive(body_bytes(d), d.get("signature"))
        action = str(dec.action)
        out = {"action": action}
        if dec.error_code is not None:
            out["error"] = dec.error_code
        if dec.action in (x.Action.PROCESS, x.Action.IGNORE) and d.get("commit", True) is not False:
            rx.commit(dec.envelope.id)
        decisions.append(out)
    return {"decisions": decisions}


def document(value):
    """A document of a vector as a Python client holds it (FORMAT.md, "Documents"): a JSON string
    is the response text, handed over as the str itself (never re-serialised); any other value
    is the parsed response, handed over as its JSON text; null or absent is not given."""
    if value is None or isinstance(value, str):
        return value
    return dumps(value)


def params_out(p):
    """`params` as the wire has it: the figures present, `{}` when none."""
    out = {}
    if p.expected is not None:
        out["expected"] = p.expected
    if p.actual is not None:
        out["actual"] = p.actual
    if p.country is not None:
        out["country"] = p.country
    return out


def issue_out(i):
    out = {"path": i.path, "code": str(i.code), "message": i.message, "label": i.label}
    if i.reason is not None:
        out["reason"] = str(i.reason)
        out["params"] = params_out(i.params)
    return out


def op_validate(inp):
    banks = inp.get("banks") or {}
    v = x.validate_beneficiary(dumps(inp.get("draft")), document(inp.get("rules")),
                               banks.get("country"), document(banks.get("response")))
    return {"valid": v.valid, "issues": [issue_out(i) for i in v.issues]}


def op_account_check(inp):
    try:
        c = x.check_account(inp["kind"], inp["value"])
    except x.FormError as e:
        return err(e)
    out = {"state": str(c.state), "electronic": c.electronic, "display": c.display}
    if c.state is x.AccountState.INVALID:
        out["code"] = str(c.code)
        out["reason"] = str(c.reason)
        out["params"] = params_out(c.params)
    return out


def op_form(inp):
    banks = inp.get("banks") or {}
    # A value that is not a string where the form takes one: the empty string (an invalid
    # value), as the Rust runner hands it over; an owner type given and not a string likewise.
    text = lambda k: inp.get(k) if isinstance(inp.get(k), str) else ""  # noqa: E731
    owner = inp.get("ownerType")
    if owner is not None and not isinstance(owner, str):
        owner = ""
    try:
        fields = x.beneficiary_form(text("country"), text("paymentType"), owner,
                                    document(inp.get("rules")), banks.get("country"),
                                    document(banks.get("response")))
    except x.FormError as e:
        return {"ok": False, "error": e.code, "field": e.field}
    return {"fields": [{
        "path": f.path, "required": f.required, "source": str(f.source), "input": str(f.input),
        "options": ([{"value": o.value, "label": o.label} for o in f.options]
                    if f.input is x.FormInput.CHOICE else None),
        "account": None if f.account is None else str(f.account),
        "length": None if f.length is None else {"min": f.length.min, "max": f.length.max},
        "label": f.label,
    } for f in fields]}


def op_normalize(inp):
    return {"draft": json.loads(x.normalize_beneficiary(dumps(inp.get("draft"))))}


def op_query(inp):
    try:
        return {"ok": True, "query": x.list_query(dumps(inp))}
    except x.PaginationError as e:
        out = err(e)
        if e.field is not None:
            out["field"] = e.field
        return out
    except x.XborderError as e:
        return err(e)


def op_info(inp):
    req = inp.get("request")
    request = x.PageRequest(page=req.get("page"), page_size=req.get("pageSize")) if req else None
    try:
        i = x.page_info(dumps(inp["response"]), request)
    except x.XborderError as e:
        return err(e)
    return {"ok": True, "total": i.total, "page": i.page, "pageSize": i.page_size,
            "totalPages": i.total_pages, "hasNext": i.has_next, "hasNextConflict": i.has_next_conflict, "hasPrevious": i.has_previous,
            "firstItem": i.first_item, "lastItem": i.last_item, "nextPage": i.next_page}


def op_walk(inp):
    """FORMAT.md's loop, through the public PageWalker: ask for the next query (none: done),
    feed the next page (none left: not done), collect what each page passed on."""
    request = inp.get("request")
    try:
        walker = x.PageWalker(dumps({} if request is None else request))
    except x.XborderError as e:
        return err(e)
    records, drifts = [], []

    def passed_on(fed):
        records.extend(r.get("id") if isinstance(r, dict) else None for r in fed.records)
        drifts.extend(d.code for d in fed.drifts)

    try:
        queries, done = feed_pages(walker, inp["pages"], passed_on)
    except x.XborderError as e:
        return err(e)
    return {"queries": queries, "records": records, "done": done, "drifts": drifts}


_NO_PAGE = object()


def feed_pages(walker, pages, on_step):
    """FORMAT.md's loop over a walker (a PageWalker, a CatchUp): ask for the next query (none:
    done), feed the next page (none left: not done; an error raised), note the query;
    ``on_step`` gets what each feed gave. Returns (queries, done)."""
    queries = []
    pages = iter(pages)
    while True:
        query = walker.next_query()
        if query is None:
            return queries, True
        page = next(pages, _NO_PAGE)
        if page is _NO_PAGE:
            return queries, False
        on_step(walker.feed(dumps(page)))
        queries.append(query)


class DictStore(x.ClaimStore):
    """The runner's own claims store, in Python: entry texts in a dict, compare-and-set under a
    lock (plugged in as a user plugs in Redis or SQL)."""

    def __init__(self):
        self.map = {}
        self.lock = threading.Lock()

    def load(self, id, time):
        with self.lock:
            return self.map.get(id)

    def compare_and_set(self, id, expected, new, time):
        with self.lock:
            if self.map.get(id) != expected:
                return False
            if new is None:
                self.map.pop(id, None)
            else:
                self.map[id] = new
            return True


def claim_results(claims, steps):
    out = []
    for s in steps:
        try:
            out.append(str(claims.step(s["do"], s["id"], s["token"], s["at"])))
        except x.XborderError as e:
            out.append(e.code)
    return out


def op_claims(inp):
    # Twice, as FORMAT.md asks: the built-in store, then a store written here.
    # FORMAT.md: no windowMs, a done id is a duplicate for ever; the API's default is 7 days: the longest window stands for it.
    rules = {"lease_ms": inp["leaseMs"], "window_ms": inp.get("windowMs", 2**64 - 1)}
    builtin = claim_results(x.Claims(**rules), inp["steps"])
    own = claim_results(x.Claims.with_store(DictStore(), **rules), inp["steps"])
    if builtin != own:
        raise AssertionError(f"the built-in store gave {builtin}, the runner's own store {own}")
    return {"results": builtin}


class AsyncDictStore:
    """``DictStore`` as an asyncio store (async load and compare-and-set, awaited by the runner
    as core's handling asks), for the async path of ``delivery.handle``."""

    def __init__(self):
        self.inner = DictStore()

    async def load(self, id, time):
        return self.inner.load(id, time)

    async def compare_and_set(self, id, expected, new, time):
        return self.inner.compare_and_set(id, expected, new, time)


def step_text(h):
    """The last claim step's outcome (or error code) as the vector writes it:
    ``DeliveryHandling.last_step()``, core's."""
    r = h.last_step()
    if r is None:
        raise AssertionError("a claim step ran, and the handling has no last step")
    return str(r.outcome) if r.outcome is not None else r.code


def finish_sync(h, act, store):
    """Answers the store calls of a step with a sync store: the act the step led to."""
    for _ in range(256):
        if isinstance(act, x.ClaimLoad):
            act = h.loaded(store.load(act.id, act.time))
        elif isinstance(act, x.ClaimCompareAndSet):
            act = h.swapped(store.compare_and_set(act.id, act.expected, act.new, act.time))
        else:
            return act
    raise AssertionError("a claim step that never ends")


async def finish_async(h, act, store):
    """``finish_sync`` with an asyncio store, awaited."""
    for _ in range(256):
        if isinstance(act, x.ClaimLoad):
            act = h.loaded(await store.load(act.id, act.time))
        elif isinstance(act, x.ClaimCompareAndSet):
            act = h.swapped(await store.compare_and_set(act.id, act.expected, act.new, act.time))
        else:
            return act
    raise AssertionError("a claim step that never ends")


async def handle_steps(inp, mode):
    """The steps of a `delivery.handle` case, each advancing its delivery's handling by one act
    (tests/vectors/DECISIONS.md), with claims in: `memory` (x.Claims), `with_store`
    (x.Claims.with_store over DictStore), `steps` (DeliveryHandling.with_store_steps, DictStore
    called here) or `async` (with_store_steps, AsyncDictStore awaited)."""
    secret = inp["secret"]
    lease, window = inp["leaseMs"], inp.get("windowMs", 2**64 - 1)
    receiver = x.Receiver(secret)
    claims = store = None
    if mode == "memory":
        claims = x.Claims(lease_ms=lease, window_ms=window)
    elif mode == "with_store":
        claims = x.Claims.with_store(DictStore(), lease_ms=lease, window_ms=window)
    elif mode == "steps":
        store = DictStore()
    else:
        store = AsyncDictStore()
    tx = bool(inp.get("transaction", False))
    handlings, acts, answers = {}, [], {}
    for s in inp["steps"]:
        name, at = s["go"], s["at"]
        d = inp["deliveries"][name]
        if name not in handlings:
            body = json.dumps(d["body"], separators=(",", ":"), ensure_ascii=False).encode("utf-8")
            sig = d.get("signature", "valid")
            sig = x.sign(secret, body) if sig == "valid" else None if sig == "missing" else sig
            token = d.get("token", name)
            if claims is not None:
                handlings[name] = x.DeliveryHandling(receiver, claims, body, sig, token,
                                                     in_transaction=tx)
            else:
                handlings[name] = x.DeliveryHandling.with_store_steps(
                    receiver, body, sig, token, lease_ms=lease, window_ms=window,
                    in_transaction=tx)
        h = handlings[name]
        act = h.next()
        if isinstance(act, x.HandlingAnswer):
            answers[name] = {"status": act.status, "retryAfter": act.retry_after_s,
                             "outcome": None if act.outcome is None else str(act.outcome),
                             "code": act.code, "persisted": act.persisted}
            text = f"answer:{act.status}"
        elif isinstance(act, x.HandlingPersist):
            ok = d.get("persist", "ok") == "ok"
            h.persisted(ok)
            text = "persist:" + ("ok" if ok else "fail")
        elif isinstance(act, x.HandlingCommit):
            ok = d.get("commit", "ok") == "ok"
            h.committed(ok)
            text = "commit:" + ("ok" if ok else "fail")
        elif isinstance(act, x.HandlingStep):
            after = h.step(at)
            if mode == "async":
                after = await finish_async(h, after, store)
            elif store is not None:
                after = finish_sync(h, after, store)
            if isinstance(after, (x.ClaimLoad, x.ClaimCompareAndSet)):
                raise AssertionError(f"a {act.step} step left a store call: {after!r}")
            text = f"{act.step}:{step_text(h)}"
        else:
            raise AssertionError(f"an act this runner does not know: {act!r}")
        acts.append(f"{name}:{text}")
    return {"acts": acts, "answers": answers}


def op_handle(inp):
    # The built-in store, then the runner's own (sync, both ways, and asyncio): all must agree.
    results = {m: asyncio.run(handle_steps(inp, m)) for m in ("memory", "with_store", "steps", "async")}
    for mode, got in results.items():
        if got != results["memory"]:
            raise AssertionError(f"the built-in store gave {results['memory']}, {mode} {got}")
    return results["memory"]


def op_api_error(inp):
    """Contract v4: an error answer through read_api_error (a str body is the response text,
    anything else the parsed body)."""
    e = x.read_api_error(inp["method"], inp["status"], inp.get("headers"), inp.get("body"))
    return {"code": e.code, "message": e.message, "details": e.details,
            "requestId": e.request_id, "retry": str(e.retry), "afterMs": e.after_ms}


def op_catch_up(inp):
    """Contract v4: the public CatchUp fed the vector's pages as `pagination.walk` feeds a
    PageWalker; its events (oldest first), checkpoint and the set of drift codes."""
    try:
        walk = x.CatchUp(inp.get("since"), inp.get("overlapMs"), inp.get("pageSize"))
    except x.XborderError as e:
        return err(e)
    try:
        queries, done = feed_pages(walk, inp["pages"], lambda _: None)
    except x.XborderError as e:
        return err(e)
    events = [{"id": e.id, "event": e.event, "entityId": e.entity_id, "entityType": e.entity_type}
              for e in walk.events()]
    drifts = sorted({d.code for d in walk.drifts()})
    return {"queries": queries, "events": events, "checkpoint": walk.checkpoint(), "done": done,
            "drifts": drifts}


OPS = {
    "event.classify": op_classify,
    "event.check_registration": op_check_registration,
    "event.matches": op_matches,
    "signature.sign": op_sign,
    "signature.verify": op_verify,
    "envelope.decode": op_decode,
    "webhook.receive": op_receive,
    "beneficiary.validate": op_validate,
    "pagination.query": op_query,
    "pagination.info": op_info,
    "pagination.walk": op_walk,
    "delivery.claims": op_claims,
    "delivery.handle": op_handle,
    "account.check": op_account_check,
    "beneficiary.form": op_form,
    "beneficiary.normalize": op_normalize,
    "api.error": op_api_error,
    "events.catch_up": op_catch_up,
}

# Ops FORMAT.md defines that this runner does not implement yet: counted as skipped.
NOT_YET = set()


def canon(v):
    """A hashable form for set comparison (numbers by value, bools apart from numbers)."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return (type(v).__name__, v)
    if isinstance(v, (int, float)):
        return ("num", float(v) if isinstance(v, float) and not v.is_integer() else int(v))
    if isinstance(v, list):
        return ("list", tuple(canon(i) for i in v))
    return ("obj", tuple(sorted((k, canon(i)) for k, i in v.items() if i is not None)))


_ABSENT = object()


def equal(want, got):
    """Deep equality, numbers by value, bools apart from numbers; (v4) an expected null matches
    a key that is null or absent, so an object's keys beyond the expected ones must be null."""
    if isinstance(want, bool) or isinstance(got, bool):
        return type(want) is type(got) and want == got
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        return want == got
    if isinstance(want, list) and isinstance(got, list):
        return len(want) == len(got) and all(equal(i, j) for i, j in zip(want, got))
    if isinstance(want, dict) and isinstance(got, dict):
        return all(key_equal(v, got.get(k, _ABSENT)) for k, v in want.items()) and \
            all(k in want or v is None for k, v in got.items())
    return type(want) is type(got) and want == got


def key_equal(want, got):
    """An expected key's value against the actual one (_ABSENT: no such key)."""
    if got is _ABSENT:
        return want is None
    return equal(want, got)


def element_matches(want, got):
    """(v4) An expected element matches an actual one when every key it has equals the
    actual element's (`{path, code}` matches an issue that also has `reason`, `message`)."""
    if isinstance(want, dict) and isinstance(got, dict):
        return all(key_equal(v, got.get(k, _ABSENT)) for k, v in want.items())
    return equal(want, got)


def paired(want, got):
    """(v4) The expected elements paired one to one with actual elements they match, none left
    over on either side: a search over every pairing (the lists are short)."""
    if not (isinstance(want, list) and isinstance(got, list)) or len(want) != len(got):
        return False
    used = [False] * len(got)

    def pair(i):
        if i == len(want):
            return True
        for j, cand in enumerate(got):
            if not used[j] and element_matches(want[i], cand):
                used[j] = True
                if pair(i + 1):
                    return True
                used[j] = False
        return False
    return pair(0)


def in_order(want, got):
    """(v4) `fields` and `events`: element by element, in order, each matched by its keys."""
    return isinstance(want, list) and isinstance(got, list) and len(want) == len(got) and \
        all(element_matches(e, a) for e, a in zip(want, got))


def multiset(want, got):
    """Same elements, order ignored, counted with multiplicity."""
    if not (isinstance(want, list) and isinstance(got, list)) or len(want) != len(got):
        return False
    left = list(got)
    for e in want:
        for i, a in enumerate(left):
            if equal(e, a):
                del left[i]
                break
        else:
            return False
    return True


def same_set(want, got):
    """Equal as sets: the same distinct values, whatever their order and count."""
    return isinstance(want, list) and isinstance(got, list) and \
        all(any(equal(e, a) for a in got) for e in want) and \
        all(any(equal(e, a) for e in want) for a in got)


def compare(key, want, got):
    """FORMAT.md: `issues` paired by their keys (v4), `fields` and `events` in order by their
    keys (v4), `rejected` as a multiset, `drifts` as a set, the rest by deep equality."""
    if key == "issues":
        return paired(want, got)
    if key in ("fields", "events"):
        return in_order(want, got)
    if key == "rejected":
        return multiset(want, got)
    if key == "drifts":
        return same_set(want, got)
    return equal(want, got)


def mismatch(expect, actual):
    for key, want in expect.items():
        if key not in actual:
            if want is None:
                continue
            return f"`{key}` missing (want {dumps(want)}; got {dumps(actual)})"
        if not compare(key, want, actual[key]):
            return f"`{key}`: want {dumps(want)}, got {dumps(actual[key])}"
    return None


# The project's own vectors not yet in FORMAT.md (tests/vectors/DECISIONS.md): read whatever
# folders are given, as the Rust runner does, until they move into tests/vectors/.
OWN_DIRS = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "vectors",
                         "handling")]


def vector_files():
    """Every `*.json` directly inside each folder of XBORDER_VECTOR_DIRS (sorted) and of
    OWN_DIRS, then each file of XBORDER_VECTOR_FILES not already among them."""
    files = []
    dirs = [d for d in os.environ.get("XBORDER_VECTOR_DIRS", "").split(":") if d]
    seen_dirs = {os.path.realpath(d) for d in dirs}
    dirs += [d for d in OWN_DIRS if os.path.isdir(d) and os.path.realpath(d) not in seen_dirs]
    for folder in dirs:
        files += [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".json")]
    seen = {os.path.realpath(f) for f in files}
    for f in (f for f in os.environ.get("XBORDER_VECTOR_FILES", "").split(":") if f):
        if os.path.realpath(f) not in seen:
            seen.add(os.path.realpath(f))
            files.append(f)
    return files


def main():
    passed = failed = 0
    skipped = Counter()
    for path in vector_files():
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for case in doc["cases"]:
            if case["op"] in NOT_YET:
                skipped[case["op"]] += 1
                continue
            op = OPS.get(case["op"])
            why = None
            if op is None:
                why = f"op `{case['op']}` is not defined by FORMAT.md"
            else:
                try:
                    why = mismatch(case["expect"], op(case["input"]))
                except Exception as e:  # noqa: BLE001 - a crash is a failure of that case
                    why = f"raised {type(e).__name__}: {e}"
            if why is None:
                passed += 1
            else:
                failed += 1
                print(f"FAIL {path} :: {case['name']}: {why}")
    for op, n in skipped.items():
        print(f"SKIP {op} ({n})")
    tail = f", {sum(skipped.values())} skipped" if skipped else ""
    print(f"conformance: {passed} passed, {failed} failed{tail}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
