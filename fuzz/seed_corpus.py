#!/usr/bin/env python3
"""Seeds fuzz/corpus/<target>/ from the conformance vectors.

Reads every *.json of tests/vectors/, of ../shared/conformance/ (beside the repository, when it
exists) and of each folder of $XBORDER_VECTORS_DIR (':'-separated), and writes each input in the
framing its target reads (see fuzz/README.md), named by its SHA-1 as libFuzzer names files.
Existing files are kept; run `fuzz/run.sh` or `cargo fuzz cmin` afterwards to minimise.

    python3 fuzz/seed_corpus.py [--out fuzz/corpus]
"""
import argparse
import base64
import glob
import hashlib
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def vector_files():
    dirs = [os.path.join(REPO, "tests", "vectors"),
            os.path.join(os.path.dirname(REPO), "shared", "conformance")]
    dirs += [d for d in os.environ.get("XBORDER_VECTORS_DIR", "").split(":") if d]
    for d in dirs:
        yield from sorted(glob.glob(os.path.join(d, "*.json")))


def body_of(inp):
    if "bodyBase64" in inp:
        return base64.b64decode(inp["bodyBase64"])
    if "body" in inp and inp["body"] is not None:
        return inp["body"].encode()
    return b""


def j(v):
    return json.dumps(v, ensure_ascii=False).encode()


def seeds(case):
    """(target, bytes) pairs for one vector case."""
    op, inp = case["op"], case["input"]
    if op == "envelope.decode":
        yield "envelope", body_of(inp)
    elif op in ("signature.verify", "signature.sign"):
        secrets = inp.get("secrets") or ([inp["secret"]] if "secret" in inp else [])
        sig = inp.get("signature")
        line = b"\x00".join(s.encode() for s in secrets)
        yield "signature", line + b"\n" + (sig or "").encode() + b"\n" + body_of(inp)
        yield "envelope", body_of(inp)
    elif op == "event.classify":
        yield "event_names", inp["name"].encode()
    elif op == "event.matches":
        yield "event_names", "\n".join([inp["event"]] + inp["subscriptions"]).encode()
    elif op == "event.check_registration":
        names = inp["events"]
        existing = inp.get("existingWebhooks", 0)
        yield "registration", "\n".join([str(existing)] + names).encode()
        yield "event_names", "\n".join(names).encode()
    elif op == "beneficiary.validate":
        draft = inp["draft"]
        yield "rules", j(inp.get("rules", {})) + b"\n" + j(draft)
        if "banks" in inp:
            yield "banks", j(inp["banks"]) + b"\n" + j(draft)
    elif op == "pagination.info":
        out = j(inp["response"])
        if "request" in inp:
            out += b"\n" + j(inp["request"])
        yield "page_info", out
    elif op == "pagination.query":
        yield "list_params", j(inp)
    elif op == "webhook.receive":
        for d in inp.get("deliveries", []):
            b = d.get("body")
            body = base64.b64decode(d["bodyBase64"]) if "bodyBase64" in d else (b or "").encode()
            yield "envelope", body
            yield "signature", inp["secret"].encode() + b"\n" + (d.get("signature") or "").encode() + b"\n" + body


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "corpus"))
    args = ap.parse_args()
    counts = {}

    def write(target, data):
        d = os.path.join(args.out, target)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, hashlib.sha1(data).hexdigest())
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(data)
            counts[target] = counts.get(target, 0) + 1

    for path in vector_files():
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for case in doc.get("cases", []):
            for target, data in seeds(case):
                write(target, data)
    # receiver_model reads `arbitrary` bytes, not a vector: a few fixed pseudo-random scenarios.
    rng = random.Random(20260101)
    for n in (16, 64, 256, 1024):
        for _ in range(4):
            write("receiver_model", bytes(rng.randrange(256) for _ in range(n)))
    for target in sorted(counts):
        print(f"{target}: {counts[target]} new")


if __name__ == "__main__":
    main()
