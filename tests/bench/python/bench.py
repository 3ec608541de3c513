"""The uniffi Python binding against what a Python integrator writes by hand (hmac, json, a set),
on the bytes of tests/bench/fixtures/, in one process. Each comparison runs in alternating
batches (the order flips every round); the figure is the median time per call and the ratio the
median of the per-round ratios, as the Node and Kotlin benches do.

Run by tests/bench/run.sh: python3 bench.py DIST_PYTHON FIXTURES OUT.json
(DIST_PYTHON: bindings-uniffi/dist/python, holding the package xborder/ as the wheel has it).
XBORDER_PYTHON_SPEED=0 imports the package without its speed module (xborder/_speed.py), to
measure what it saves.
"""
import ctypes
import hashlib
import hmac
import json
import os
import platform
import statistics
import sys
import time

dist, fixtures, out = sys.argv[1:4]
sys.path.insert(0, dist)
import xborder  # noqa: E402
from _xborder_ffi import xborder as generated  # noqa: E402  (the ctypes floor below)

ROUNDS = int(os.environ.get("XBORDER_BENCH_ROUNDS", "15"))
BATCH_MS = float(os.environ.get("XBORDER_BENCH_BATCH_MS", "20"))
WARMUP_MS = float(os.environ.get("XBORDER_BENCH_WARMUP_MS", "300"))


def read(name, mode="rb"):
    with open(os.path.join(fixtures, name), mode) as fh:
        return fh.read()


def calibrate(f):
    iters = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(iters):
            f()
        ms = (time.perf_counter() - t0) * 1e3
        if ms >= BATCH_MS / 4 or iters > 10_000_000:
            return max(1, int(iters * BATCH_MS / max(ms, 0.001)))
        iters *= 4


def batch(f, iters):
    t0 = time.perf_counter_ns()
    for _ in range(iters):
        f()
    return (time.perf_counter_ns() - t0) / iters


def compare(name, fns):
    """Alternating batches; the first function is xborder's."""
    for f in fns.values():
        end = time.perf_counter() + WARMUP_MS / 1e3
        while time.perf_counter() < end:
            f()
    iters = {n: calibrate(f) for n, f in fns.items()}
    times = {n: [] for n in fns}
    names = list(fns)
    for r in range(ROUNDS):
        for n in (reversed(names) if r % 2 else names):
            times[n].append(batch(fns[n], iters[n]))
    ns = {n: statistics.median(times[n]) for n in names}
    first = names[0]
    ratio = {"%s/%s" % (first, n): statistics.median(a / b for a, b in zip(times[first], times[n]))
             for n in names[1:]}
    print("python: %s: %s; %s" % (name, ", ".join("%s %.2f µs" % (n, t / 1000) for n, t in ns.items()),
                                  ", ".join("%s %.2f×" % (k, v) for k, v in ratio.items())))
    return {"name": name, "ns": ns, "ratio": ratio}


secret = read("secret.txt", "r")
key = secret.encode("utf-8")


def hand_verify(body, sig):
    """What a Python integrator writes: HMAC-SHA256 of the raw body, a constant-time compare."""
    return hmac.compare_digest(hmac.new(key, body, hashlib.sha256).hexdigest(), sig.strip().lower())


rx = xborder.Receiver(secret, 20_000)
seen = set()
for i in range(10_000):
    eid = "evt_" + str(i).zfill(26)
    rx.commit(eid)
    seen.add(eid)

results = []
for size in ("1k7", "20k"):
    body = read("envelope-%s.json" % size)
    sig = read("envelope-%s.sig" % size, "r")
    xborder.verify(secret, body, sig)
    assert hand_verify(body, sig)
    assert rx.receive(body, sig).action == xborder.Action.PROCESS

    def naive(body=body, sig=sig):
        if not hand_verify(body, sig):
            raise ValueError("signature")
        return json.loads(body)["id"] in seen

    results.append(compare("verify/%s" % size, {
        "xborder": lambda body=body, sig=sig: xborder.verify(secret, body, sig),
        "hmac": lambda body=body, sig=sig: hand_verify(body, sig),
    }))
    results.append(compare("receive/%s" % size, {
        "xborder": lambda body=body, sig=sig: rx.receive(body, sig),
        "naive": naive,
        "hmac": lambda body=body, sig=sig: hand_verify(body, sig),
    }))
# One foreign call with almost no work: what crossing ctypes and uniffi's buffers costs. Beside
# it, the floor of that crossing: two bare ctypes calls passing and returning uniffi's structures
# (make a Rust buffer from bytes, free it), with none of uniffi's Python code; a call that takes
# a text and answers a record needs three (the argument's buffer, the call, the answer's free).
live = {"order:funds_received", "order:created", "order:success"}
lib, status = generated._UniffiLib, generated._UniffiRustCallStatus()
name = b"order:funds_received"
fb = generated._UniffiForeignBytes(len(name), ctypes.cast(ctypes.c_char_p(name), ctypes.POINTER(ctypes.c_char)))


def two_bare_calls():
    rb = lib.ffi_xborder_ffi_rustbuffer_from_bytes(fb, ctypes.byref(status))
    lib.ffi_xborder_ffi_rustbuffer_free(rb, ctypes.byref(status))


results.append(compare("classify/order_funds_received", {
    "xborder": lambda: xborder.classify_event("order:funds_received"),
    "naive": lambda: "order:funds_received" in live,
    "ctypes2": two_bare_calls,
}))
with open(out, "w") as fh:
    json.dump({"python": "%s %s" % (platform.python_implementation(), platform.python_version()),
               "rounds": ROUNDS, "batchMs": BATCH_MS, "results": results}, fh)
    fh.write("\n")
