"""The README's FastAPI app (the python block after ``<!-- fastapi-app``), as written, served by
uvicorn against a redis-server started here: a signed delivery 200 and persisted once; its
redelivery 200, not persisted again; a delivery another instance holds (claimed in the same
Redis with another token) 503 with Retry-After (the lease); a tampered one 400.

    python test_fastapi.py bindings-uniffi/dist-readme/python.md
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from typing import Any, Dict, List, Tuple

import redis

import xborder
from xborder.redis import RedisClaimStore

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import redis_server  # noqa: E402
from test_readme import blocks  # noqa: E402

SECRET = "whsec_fastapi"
failures: List[str] = []


def check(what: str, got: Any, want: Any) -> None:
    if got != want:
        failures.append(what)
        print("FAIL %s: got %r, want %r" % (what, got, want))


def post(url: str, body: bytes, signature: str) -> Tuple[int, Dict[str, str], Any]:
    req = urllib.request.Request(url, data=body, headers={"X-Webhook-Signature": signature})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), json.loads(e.read())


def main() -> int:
    apps = blocks(sys.argv[1], apps=True)
    if len(apps) != 1:
        print("FAIL want one fastapi-app block in %s, found %d" % (sys.argv[1], len(apps)))
        return 1
    redis_proc, rport = redis_server.start()
    uvicorn = None
    try:
        with tempfile.TemporaryDirectory() as work:
            with open(os.path.join(work, "app.py"), "w") as f:
                f.write(apps[0][1])
            events = os.path.join(work, "events.jsonl")
            port = redis_server.free_port()
            env = dict(os.environ, WEBHOOK_SECRET=SECRET, EVENTS_FILE=events,
                       REDIS_URL="redis://127.0.0.1:%d/0" % rport)
            env.pop("PYTHONPATH", None)
            uvicorn = subprocess.Popen([sys.executable, "-m", "uvicorn", "app:app", "--host",
                                        "127.0.0.1", "--port", str(port), "--log-level",
                                        "warning"], cwd=work, env=env)
            url = "http://127.0.0.1:%d/webhooks" % port
            for _ in range(200):
                try:
                    urllib.request.urlopen(url.replace("/webhooks", "/docs"), timeout=1).close()
                    break
                except OSError:
                    if uvicorn.poll() is not None:
                        raise RuntimeError("uvicorn exited (%s)" % uvicorn.returncode)
                    time.sleep(0.05)
            body = (b'{"id":"evt_1","event":"order:created","entity":{"id":"ord_1",'
                    b'"type":"order","data":{"amount":5}}}')
            sig = xborder.sign(SECRET, body)
            status, _, answer = post(url, body, sig)
            check("signed delivery", (status, answer), (200, {"result": "completed"}))
            status, _, answer = post(url, body, sig)
            check("redelivery", (status, answer), (200, {"result": "duplicate"}))
            with open(events) as f:
                check("persisted once", [json.loads(l)["id"] for l in f], ["evt_1"])
            # Another instance holds evt_2 (same Redis, same keys): this one answers 503.
            other = xborder.Claims.with_store(RedisClaimStore(redis.Redis(port=rport)),
                                              lease_ms=30_000)
            check("other instance claims", other.step("claim", "evt_2", "other",
                                                      time.time_ns() // 1_000_000),
                  xborder.ClaimOutcome.CLAIMED)
            body2 = body.replace(b"evt_1", b"evt_2")
            status, headers, answer = post(url, body2, xborder.sign(SECRET, body2))
            check("concurrent duplicate", (status, headers.get("retry-after") or
                                           headers.get("Retry-After"), answer),
                  (503, "30", {"result": "in_progress"}))
            status, _, answer = post(url, body.replace(b"5", b"6"), sig)
            check("tampered", (status, answer), (400, {"error": "SIGNATURE_MISMATCH"}))
            with open(events) as f:
                check("nothing else persisted", len(f.readlines()), 1)
    finally:
        if uvicorn is not None:
            uvicorn.terminate()
            uvicorn.wait(10)
        redis_proc.kill()
    print("fastapi recipe (uvicorn, redis-server): %d checks failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
