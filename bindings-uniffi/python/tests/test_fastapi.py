"""The README's FastAPI app (the python block after ``<!-- fastapi-app``), as written, served by
uvicorn against a redis-server started here: a signed delivery 200 and persisted once; its
redelivery 200, not persisted again; a delivery another instance holds (claimed in the same
Redis with another token) 503 with Retry-After (the lease); a tampered one 400.

    python test_fastapi.py bindings-uniffi/dist-readme/python.md
"""

import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from typing import Any, Dict, List, Optional, Tuple

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


def head(length: Optional[int]) -> bytes:
    framing = ("Content-Length: %d" % length if length is not None
               else "Transfer-Encoding: chunked")
    return ("POST /webhooks HTTP/1.1\r\nHost: test\r\nX-Webhook-Signature: 00\r\n%s\r\n\r\n"
            % framing).encode()


def raw(port: int, data: bytes, timeout: float) -> Tuple[Optional[int], Any, float]:
    """Sends ``data`` on a new connection (stopping when an answer comes), then reads the
    answer: (status, JSON body, seconds taken); status None when none came."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            for i in range(0, len(data), 65536):
                s.sendall(data[i:i + 65536])
                if select.select([s], [], [], 0)[0]:
                    break
        except OSError:
            pass
        got = b""
        try:
            while b"\r\n\r\n" not in got or len(got.partition(b"\r\n\r\n")[2]) < int(
                    dict(l.split(": ", 1) for l in got.partition(b"\r\n\r\n")[0].decode()
                         .lower().split("\r\n")[1:] if ": " in l).get("content-length", "0")):
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
        except OSError:
            pass
    took = time.monotonic() - started
    head_, _, rest = got.partition(b"\r\n\r\n")
    if not head_:
        return None, None, took
    try:
        answer = json.loads(rest)
    except ValueError:
        answer = rest
    return int(head_.split()[1]), answer, took


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
            env = dict(os.environ, WEBHOOK_SECRET=SECRET, EVENTS_FILE=events, BODY_TIMEOUT_S="2",
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
            limit = xborder.default_decode_limits().max_body_bytes
            # Declared 64 MiB, nothing sent after the head: 413 at once, unread.
            status, answer, took = raw(port, head(limit * 64) , 20)
            check("declared 64 MiB", (status, answer), (413, {"error": "BODY_TOO_LARGE"}))
            check("declared 64 MiB answered before the body timeout (unread)", took < 5, True)
            # Chunked, past the limit: 413 once the bytes received pass it (the rest never sent).
            chunk = b"%x\r\n" % 65536 + b" " * 65536 + b"\r\n"
            status, answer, _ = raw(port, head(None) + chunk * (limit // 65536 + 1), 20)
            check("chunked past the limit", (status, answer), (413, {"error": "BODY_TOO_LARGE"}))
            # A body that stalls: 408 after BODY_TIMEOUT_S (2 s here).
            status, answer, took = raw(port, head(100) + b"{", 30)
            check("stalled body", (status, answer), (408, {"error": "BODY_TIMEOUT"}))
            check("stalled body after the timeout, within 3 x it plus 1 s", 1.9 <= took <= 7, True)
    finally:
        if uvicorn is not None:
            uvicorn.terminate()
            uvicorn.wait(10)
        redis_proc.kill()
    print("fastapi recipe (uvicorn, redis-server): %d checks failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
