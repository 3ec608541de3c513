#!/usr/bin/env python3
"""Writes the big hostile conformance vectors (multi-megabyte bodies and strings, 100k-deep
nesting, huge arrays) into the folder given as argument, e.g.

    python3 tests/vectors/hostile/generate.py target/hostile-generated

They are too big to commit; tests/conformance.sh runs this once and adds the folder to
XBORDER_VECTOR_DIRS so every runtime's runner reads them. The output is deterministic (no
clock, no unseeded randomness): the same script writes the same bytes. Signatures of the
webhook.receive and signature.* cases are computed here with Python's hmac.

Sizes are kept to what every runner (Gson, JSONSerialization, Python's json, V8) reads in
seconds: no single input above about 2 MB, each file under about 4 MB.
"""
import base64
import hashlib
import hmac
import json
import os
import sys

SECRET = "whsec_hostile_generated"
MIB = 1 << 20


def sig(body: bytes, secret: str = SECRET) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def b64(b: bytes) -> str:
    return base64.b64encode(b).decode()


def stream(seed: str, n: int) -> bytes:
    """n deterministic pseudo-random bytes (SHA-256 in counter mode)."""
    out = bytearray()
    i = 0
    while len(out) < n:
        out += hashlib.sha256(f"{seed}:{i}".encode()).digest()
        i += 1
    return bytes(out[:n])


def env(id_='"evt_g"', data=None, event='"order:created"'):
    ent = '{"id":"ord_g","type":"order"%s}' % ("" if data is None else ',"data":' + data)
    return '{"id":%s,"event":%s,"entity":%s}' % (id_, event, ent)


def padded(total: int) -> str:
    """A valid envelope of exactly `total` bytes (ASCII), padded inside entity.data."""
    bare = env(data='{"pad":""}')
    return env(data='{"pad":"%s"}' % ("p" * (total - len(bare))))


def case(name, op, inp, expect):
    return {"name": name, "op": op, "input": inp, "expect": expect}


def dec(name, body, expect):
    inp = {"bodyBase64": b64(body)} if isinstance(body, bytes) else {"body": body}
    return case(name, "envelope.decode", inp, expect)


def envelopes():
    deep_arrays = env(data='{"x":' + "[" * 100_000 + "]" * 100_000 + "}")
    deep_objects = env(data='{"a":' * 100_000 + "1" + "}" * 100_000)
    brackets_in_string = env(data='{"s":"' + "[{" * 200_000 + '"}')
    long_id = "i" * 400_000
    euro_id = "\u20ac" * 150_000
    many_numbers = env(data='{"n":[' + ",".join(str(i) for i in range(100_000)) + "]}")
    many_keys = env(data="{" + ",".join('"k%d":%d' % (i, i) for i in range(50_000)) + "}")
    escaped_nuls = env(data='{"s":"' + "\\u0000" * 100_000 + '"}')
    exact = padded(MIB)
    assert len(exact.encode()) == MIB
    return [
        dec("body of exactly 1 MiB decodes", exact, {"ok": True, "id": "evt_g", "kind": "live"}),
        dec("body of 1 MiB + 1 byte is BODY_TOO_LARGE", padded(MIB + 1), {"ok": False, "error": "BODY_TOO_LARGE"}),
        dec("2 MB body is BODY_TOO_LARGE", padded(2_000_000), {"ok": False, "error": "BODY_TOO_LARGE"}),
        dec("1.2 MB of bytes that are not UTF-8 is BODY_TOO_LARGE (size is checked first)",
            b"\xff" + stream("not-utf8", 1_200_000), {"ok": False, "error": "BODY_TOO_LARGE"}),
        dec("100000-deep arrays inside entity.data are NESTING_TOO_DEEP", deep_arrays, {"ok": False, "error": "NESTING_TOO_DEEP"}),
        dec("100000-deep objects inside entity.data are NESTING_TOO_DEEP", deep_objects, {"ok": False, "error": "NESTING_TOO_DEEP"}),
        dec("1000000 open brackets are NESTING_TOO_DEEP", "[" * 1_000_000, {"ok": False, "error": "NESTING_TOO_DEEP"}),
        dec("400000 brackets inside a string decode", brackets_in_string, {"ok": True, "id": "evt_g"}),
        dec("an id of 400000 characters decodes", env(id_='"%s"' % long_id), {"ok": True, "id": long_id, "entityId": "ord_g"}),
        dec("an id of 150000 three-byte characters decodes intact", env(id_='"%s"' % euro_id), {"ok": True, "id": euro_id}),
        dec("an array of 100000 numbers in entity.data decodes", many_numbers, {"ok": True, "id": "evt_g"}),
        dec("an object of 50000 keys in entity.data decodes", many_keys, {"ok": True, "id": "evt_g"}),
        dec("100000 escaped NULs in a data string decode", escaped_nuls, {"ok": True, "id": "evt_g"}),
        dec("100000 raw NUL bytes are MALFORMED_JSON", env(id_='"%s"' % ("\x00" * 100_000)), {"ok": False, "error": "MALFORMED_JSON"}),
    ]


def signatures():
    big = padded(1_500_000).encode()
    noise = stream("noise", 1_000_000)
    flipped = big[:-1] + b"]"
    return [
        case("sign a 1.5 MB body", "signature.sign", {"secret": SECRET, "body": big.decode()}, {"signature": sig(big)}),
        case("sign 1 MB of arbitrary bytes", "signature.sign", {"secret": SECRET, "bodyBase64": b64(noise)}, {"signature": sig(noise)}),
        case("sign with a 1 MB secret", "signature.sign", {"secret": "s" * MIB, "body": "{}"}, {"signature": sig(b"{}", "s" * MIB)}),
        case("verify a 1.5 MB body", "signature.verify", {"secret": SECRET, "body": big.decode(), "signature": sig(big)}, {"ok": True}),
        case("verify a 1.5 MB body whose last byte changed", "signature.verify",
             {"secret": SECRET, "body": flipped.decode(), "signature": sig(big)}, {"ok": False, "error": "SIGNATURE_MISMATCH"}),
        case("a 1 MB signature header is MALFORMED_SIGNATURE", "signature.verify",
             {"secret": SECRET, "body": "{}", "signature": "a" * MIB}, {"ok": False, "error": "MALFORMED_SIGNATURE"}),
        case("the right key after 10000 wrong ones passes", "signature.verify",
             {"secrets": ["k%d" % i for i in range(10_000)] + [SECRET], "body": "{}", "signature": sig(b"{}")}, {"ok": True}),
    ]


def receive():
    def d(body, commit=None):
        b = body if isinstance(body, bytes) else body.encode()
        out = {"bodyBase64": b64(b)} if isinstance(body, bytes) else {"body": body}
        out["signature"] = sig(b)
        if commit is not None:
            out["commit"] = commit
        return out

    normal = env()
    long_id = env(id_='"%s"' % ("r" * 300_000))
    many = [d(env(id_='"evt_%d"' % i)) for i in range(5_000)]
    return [
        case("signed hostile bodies are rejected, the receiver keeps working", "webhook.receive", {
            "secret": SECRET,
            "deliveries": [
                d(padded(2_000_000)),
                d(env(data='{"x":' + "[" * 100_000 + "]" * 100_000 + "}")),
                d(b"\xef\xbb\xbf" + normal.encode()),
                d(long_id),
                d(long_id),
                d(normal),
            ],
        }, {"decisions": [
            {"action": "reject", "error": "BODY_TOO_LARGE"},
            {"action": "reject", "error": "NESTING_TOO_DEEP"},
            {"action": "reject", "error": "MALFORMED_JSON"},
            {"action": "process"},
            {"action": "duplicate"},
            {"action": "process"},
        ]}),
        case("5000 deliveries through a window of 100: the first id is forgotten", "webhook.receive", {
            "secret": SECRET, "window": 100, "deliveries": many + [many[0], many[-1]],
        }, {"decisions": [{"action": "process"}] * 5_000 + [{"action": "process"}, {"action": "duplicate"}]}),
    ]


def events():
    return [
        case("a 600000-byte well-formed name is unknown", "event.classify", {"name": "a" * 600_000 + ":b"},
             {"kind": "unknown", "entity": "a" * 600_000, "action": "b"}),
        case("a 1 MB name of colons is invalid", "event.classify", {"name": ":" * MIB}, {"kind": "invalid"}),
        case("50000 live names and 50000 copies of one unknown name", "event.check_registration",
             {"events": ["order:created", "zz:top"] * 50_000},
             {"ok": False, "code": "VALIDATION_FAILED", "rejected": [{"event": "zz:top", "reason": "unknown"}]}),
        case("50000 copies of one live name register", "event.check_registration", {"events": ["sender:created"] * 50_000}, {"ok": True}),
        case("100000 subscriptions, the last one matches", "event.matches",
             {"subscriptions": ["s%d:x" % i for i in range(100_000)] + ["order:*"], "event": "order:created"}, {"matches": True}),
        case("100000 subscriptions, none matches", "event.matches",
             {"subscriptions": ["s%d:x" % i for i in range(100_000)], "event": "order:created"}, {"matches": False}),
    ]


def beneficiary():
    draft = {"ownerType": "business", "country": "CO", "paymentType": "bank_account", "paymentInfo": {"bankId": "bank_29999"}}
    banks = {"country": "CO", "response": {"data": [{"id": "bank_%d" % i, "name": "B"} for i in range(30_000)]}}
    return [
        case("a bank list of 30000 banks, the draft's is the last", "beneficiary.validate",
             {"draft": draft, "banks": banks}, {"valid": True, "issues": []}),
        case("a bank list of 30000 banks without the draft's", "beneficiary.validate",
             {"draft": {**draft, "paymentInfo": {"bankId": "bank_x"}}, "banks": banks},
             {"valid": False, "issues": [{"path": "paymentInfo.bankId", "code": "UNKNOWN_BANK"}]}),
        case("a 1 MB bankId is UNKNOWN_BANK", "beneficiary.validate",
             {"draft": {**draft, "paymentInfo": {"bankId": "b" * MIB}}, "banks": {"country": "CO", "response": {"data": [{"id": "b"}]}}},
             {"valid": False, "issues": [{"path": "paymentInfo.bankId", "code": "UNKNOWN_BANK"}]}),
        case("20000 copies of one required field give one issue", "beneficiary.validate",
             {"draft": draft, "rules": {"data": {"rules": {"requiredFields": [{"field": "address.city"}] * 20_000}}}},
             {"valid": False, "issues": [{"path": "address", "code": "REQUIRED"}]}),
        case("paymentInfo with 50000 extra keys is valid", "beneficiary.validate",
             {"draft": {**draft, "paymentInfo": {"bankId": "bank_1", **{"k%d" % i: i for i in range(50_000)}}}}, {"valid": True, "issues": []}),
        case("an array of 100000 items under an unknown key is valid", "beneficiary.validate",
             {"draft": {**draft, "extra": list(range(100_000))}}, {"valid": True, "issues": []}),
    ]


def pagination():
    data = [{"id": i} for i in range(50_000)]
    return [
        case("a search of 500000 unreserved characters", "pagination.query", {"search": "a" * 500_000},
             {"query": "page=0&pageSize=10&sortBy=createdAt&sortOrder=DESC&search=" + "a" * 500_000}),
        case("a search of 100000 three-byte characters", "pagination.query", {"search": "\u20ac" * 100_000},
             {"query": "page=0&pageSize=10&sortBy=createdAt&sortOrder=DESC&search=" + "%E2%82%AC" * 100_000}),
        case("a page of 50000 records", "pagination.info",
             {"response": {"data": data, "total": 120_000, "page": 1, "pageSize": 50_000}},
             {"total": 120_000, "totalPages": 3, "hasNext": True, "firstItem": 50_001, "lastItem": 100_000, "nextPage": 2}),
        case("50000 records on a page of 10 count as 10", "pagination.info",
             {"response": {"data": data, "total": 15, "page": 1, "pageSize": 10}},
             {"firstItem": 11, "lastItem": 15, "hasNext": False, "nextPage": None}),
    ]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: generate.py OUTPUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    total = 0
    for name, build in [("envelope", envelopes), ("signature", signatures), ("receive", receive),
                        ("events", events), ("beneficiary", beneficiary), ("pagination", pagination)]:
        cases = build()
        path = os.path.join(out, "hostile-%s.json" % name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"suite": "hostile generated: %s" % name, "cases": cases}, f, ensure_ascii=False, separators=(",", ":"))
            f.write("\n")
        total += len(cases)
        print("generate.py: %s (%d cases, %.1f MB)" % (path, len(cases), os.path.getsize(path) / 1e6))
    print("generate.py: %d cases" % total)


if __name__ == "__main__":
    main()
