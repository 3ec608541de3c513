"""The Python receiver against hostile clients and degraded stores (issue 30, the contract in
examples/README.md), with real servers started here and stopped at the end (a redis-server on a
free port; PostgreSQL with tests/servers/postgres.sh):

- a declared Content-Length over --max-body-bytes: 413 ``BODY_TOO_LARGE`` unread (no body sent,
  no ``100 Continue``), Connection: close, closed; a body of exactly the limit is processed;
- a chunked body trickled past the limit: 413 once the bytes received pass it;
- a body that stalls: 408 ``BODY_TIMEOUT`` after --body-timeout-ms, closed; a head that stalls:
  closed after --header-timeout-ms;
- connections over --max-connections while the first ones are held: 503
  ``TOO_MANY_CONNECTIONS``, Retry-After: 1, Connection: close, closed; served again once one
  closes;
- Redis and PostgreSQL SIGSTOPped: 503 ``STORE_UNAVAILABLE`` within a few store timeouts;
  processed again after SIGCONT;
- --clock-skew-ms 300000 with Redis and with PostgreSQL: claimed_at_ms within a second of the
  store's clock, the warning logged, clock_offset_ms in /stats and the persisted line;
- PostgreSQL's pool: at most --pool connections, closed after --pool-idle-ms;
- SIGTERM with requests in flight: every one answered (Connection: close), idle connections
  closed after --drain-ms (a request written on one meanwhile is answered), exit 0 and the
  ``shutdown:`` line; past --grace-ms, exit 1;
- SIGTERM while clients send requests back to back on kept-alive connections: every request
  written is answered (a connection is refused, or seen closed, only before a request is
  written on it, never reset after);
- a completion cut by a hung Redis (SIGSTOP after the claim, during the persist delay): the
  answer is 200, the completion is retried in the background and, after SIGCONT (the lease
  over by then), the id is done: a redelivery is answered duplicate, persisted once.

Every time bound is generous (a loaded 2-core machine): "within 3 x the timeout plus a second",
never a race with a server's clock. Run by examples/receiver-python/test.sh."""

import json
import os
import pathlib
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

import xborder

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SERVER_SH = ROOT / "tests" / "servers" / "postgres.sh"
SECRET = "whsec_limits"
failures = []
checks = 0


def fail(why):
    failures.append(why)
    print(f"FAIL {why}", flush=True)


def expect(what, got, want):
    global checks
    checks += 1
    if got != want:
        fail(f"{what}: got {got!r}, want {want!r}")


def expect_true(what, ok, detail=""):
    global checks
    checks += 1
    if not ok:
        fail(f"{what}{': ' + detail if detail else ''}")


def body(id, pad=0):
    doc = {"id": id, "event": "order:created",
           "entity": {"id": "ord_" + id, "type": "order", "data": {"n": 1, "pad": "x" * pad}}}
    return json.dumps(doc, separators=(",", ":")).encode()


def body_of_size(id, size):
    """A valid envelope of exactly ``size`` bytes."""
    base = len(body(id, 0))
    data = body(id, size - base)
    assert len(data) == size, (len(data), size)
    return data


class Receiver:
    """server.py in a subprocess; ``addr`` its address; stderr collected by a thread."""

    def __init__(self, *args):
        self.p = subprocess.Popen([sys.executable, str(HERE / "server.py"), "--listen",
                                   "127.0.0.1:0", "--secret", SECRET, *args],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.err = []
        threading.Thread(target=self._read_err, daemon=True).start()
        self.addr = self.p.stdout.readline().strip()
        if not self.addr:
            self.p.wait(timeout=10)
            raise RuntimeError(f"server.py {' '.join(args)} did not start: {self.stderr()}")
        host, _, port = self.addr.rpartition(":")
        self.host, self.port = host, int(port)

    def _read_err(self):
        for line in self.p.stderr:
            self.err.append(line)

    def stderr(self):
        return "".join(self.err)

    def stop(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()

    def post(self, data, signature=None, timeout=30):
        sig = xborder.sign(SECRET, data) if signature is None else signature
        req = urllib.request.Request(f"http://{self.addr}/webhooks", data=data,
                                     headers={"X-Webhook-Signature": sig})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, json.loads(r.read()), dict(r.headers)
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read()), dict(e.headers)

    def stats(self):
        with urllib.request.urlopen(f"http://{self.addr}/stats", timeout=10) as r:
            return json.loads(r.read())

    def connect(self):
        return socket.create_connection((self.host, self.port), timeout=30)


def read_answer(sock, timeout=15):
    """(status, headers lowercased, body, closed after) of one answer on ``sock``, reading at
    most ``timeout`` seconds; status None when nothing whole came."""
    sock.settimeout(timeout)
    data = b""
    end = time.monotonic() + timeout
    status, headers, text = None, {}, b""
    while time.monotonic() < end:
        if b"\r\n\r\n" in data:
            head, _, rest = data.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            if lines[0].startswith("HTTP/1.1 100"):
                data = rest
                headers["_saw_100"] = "yes"
                continue
            status = int(lines[0].split()[1])
            for line in lines[1:]:
                k, _, v = line.partition(":")
                headers[k.strip().lower()] = v.strip()
            n = int(headers.get("content-length", "0"))
            if len(rest) >= n:
                text = rest[:n]
                break
        try:
            chunk = sock.recv(65536)
        except (socket.timeout, ConnectionResetError):
            break
        if not chunk:
            break
        data += chunk
    closed = False
    if status is not None:
        closed = wait_closed(sock, 10)
    return status, headers, text, closed


def wait_closed(sock, timeout):
    """Whether the server closed ``sock`` (EOF or reset) within ``timeout`` s."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r, _, _ = select.select([sock], [], [], max(0.0, end - time.monotonic()))
        if not r:
            return False
        try:
            if not sock.recv(65536):
                return True
        except (ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            return False
    return False


def head(path, length=None, extra=()):
    lines = [f"POST {path} HTTP/1.1", "Host: test"]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    lines += list(extra)
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def test_bodies(work):
    limit = 4096
    rx = Receiver("--max-body-bytes", str(limit), "--body-timeout-ms", "1500",
                  "--header-timeout-ms", "1500", "--persist", os.path.join(work, "bodies.jsonl"))
    try:
        # A body of exactly the limit is processed; one byte over is refused.
        data = body_of_size("evt_limit", limit)
        expect("a body of the limit", rx.post(data)[:2], (200, {"result": "processed"}))
        over = body_of_size("evt_over", limit + 1)
        status, answer, headers = rx.post(over)
        expect("a body one byte over", (status, answer), (413, {"error": "BODY_TOO_LARGE"}))

        # Declared too large, nothing sent after the head (with Expect: 100-continue): 413 at
        # once, no 100 Continue, closed. Waiting for the body would be a 408 after 1.5 s.
        with rx.connect() as s:
            started = time.monotonic()
            s.sendall(head("/webhooks", 1 << 30, ["Expect: 100-continue",
                                                   "X-Webhook-Signature: 00"]))
            status, headers, text, closed = read_answer(s)
            took = time.monotonic() - started
            expect("declared 1 GiB: answer", (status, json.loads(text or b"null")),
                   (413, {"error": "BODY_TOO_LARGE"}))
            expect("declared 1 GiB: no 100 Continue, Connection: close",
                   ("_saw_100" in headers, headers.get("connection")), (False, "close"))
            expect("declared 1 GiB: closed", closed, True)
            expect_true("declared 1 GiB: answered before the body timeout (unread)", took < 1.4,
                        f"{took:.2f} s")

        # Chunked, trickled: 4 chunks of 1000 bytes (under the limit), then one more: 413 as
        # the bytes received pass the limit, before any end of the body.
        with rx.connect() as s:
            s.sendall(head("/webhooks", None, ["Transfer-Encoding: chunked",
                                               "X-Webhook-Signature: 00"]))
            for _ in range(4):
                s.sendall(b"3e8\r\n" + b"a" * 1000 + b"\r\n")
                time.sleep(0.05)
            r, _, _ = select.select([s], [], [], 0.3)
            expect("chunked under the limit: no answer yet", bool(r), False)
            s.sendall(b"3e8\r\n" + b"a" * 1000 + b"\r\n")
            status, headers, text, closed = read_answer(s)
            expect("chunked past the limit", (status, json.loads(text or b"null"), closed),
                   (413, {"error": "BODY_TOO_LARGE"}, True))

        # A valid chunked body is processed.
        data = body("evt_chunked")
        with rx.connect() as s:
            sig = xborder.sign(SECRET, data)
            s.sendall(head("/webhooks", None, ["Transfer-Encoding: chunked",
                                               f"X-Webhook-Signature: {sig}"]))
            for i in range(0, len(data), 7):
                part = data[i:i + 7]
                s.sendall(b"%x\r\n" % len(part) + part + b"\r\n")
            s.sendall(b"0\r\n\r\n")
            status, headers, text, _ = read_answer(s)
            expect("chunked, whole", (status, json.loads(text or b"null")),
                   (200, {"result": "processed"}))

        # Content-Length with Transfer-Encoding: 400, closed.
        with rx.connect() as s:
            s.sendall(head("/webhooks", 5, ["Transfer-Encoding: chunked"]) + b"0\r\n\r\n")
            status, _, _, closed = read_answer(s)
            expect("CL and TE", (status, closed), (400, True))

        # A body that stalls: 408 after the body timeout (1.5 s), closed.
        with rx.connect() as s:
            started = time.monotonic()
            s.sendall(head("/webhooks", 100, ["X-Webhook-Signature: 00"]) + b"{" * 10)
            status, headers, text, closed = read_answer(s, timeout=20)
            took = time.monotonic() - started
            expect("stalled body", (status, json.loads(text or b"null"), closed),
                   (408, {"error": "BODY_TIMEOUT"}, True))
            expect_true("stalled body: after the body timeout, within 3 x it plus 1 s",
                        1.4 <= took <= 5.5, f"{took:.2f} s")

        # A head that stalls: closed after the header timeout (1.5 s), no answer.
        with rx.connect() as s:
            started = time.monotonic()
            s.sendall(b"POST /webhooks HTTP/1.1\r\nHost: x\r\n")
            closed = wait_closed(s, 20)
            took = time.monotonic() - started
            expect("stalled head: closed", closed, True)
            expect_true("stalled head: after the header timeout, within 3 x it plus 1 s",
                        1.4 <= took <= 5.5, f"{took:.2f} s")
        st = rx.stats()
        expect("bodies stats", (st["body_too_large"] >= 3, st["body_timeout"], st["processed"]),
               (True, 1, 2))
    finally:
        rx.stop()


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def test_trickle():
    """Four connections trickling 10,000 bytes each, one byte per TCP segment (the trial's
    attack on the Rust receiver): the receiver's RSS grows by at most 2 x the body limit per
    connection while it holds them, and each is answered once it ends."""
    limit = 1 << 20
    rx = Receiver("--max-body-bytes", str(limit), "--body-timeout-ms", "120000")
    socks = []
    try:
        rx.post(body("evt_warm"))  # the first request's imports and allocations, before
        before = rss_kib(rx.p.pid)
        n = 10_000

        def trickle(s):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.sendall(head("/webhooks", n + 10, ["X-Webhook-Signature: 00"]))
            for _ in range(n):
                s.send(b" ")

        socks = [rx.connect() for _ in range(4)]
        threads = [threading.Thread(target=trickle, args=(s,)) for s in socks]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        time.sleep(0.5)
        held = rss_kib(rx.p.pid)
        growth = held - before
        expect_true("trickled bodies: RSS growth within 2 x the limit per connection",
                    growth <= 4 * 2 * limit // 1024,
                    f"{growth} KiB for 4 connections, limit {limit} bytes")
        print(f"receiver-python limits: 4 connections trickling {n} bytes one per segment: "
              f"RSS {before} KiB -> {held} KiB", flush=True)
        answers = []
        for s in socks:
            s.sendall(b" " * 10)
            answers.append(read_answer_keep(s)[0])
        expect("trickled bodies answered (not envelopes: 400)", answers, [400] * 4)
    finally:
        for s in socks:
            s.close()
        rx.stop()


def test_connections():
    rx = Receiver("--max-connections", "4", "--header-timeout-ms", "60000")
    held = []
    try:
        # Three connections held (nothing sent), a fourth kept alive: at the cap.
        held = [rx.connect() for _ in range(3)]
        probe = rx.connect()
        held.append(probe)
        seen = None
        for _ in range(50):
            probe.sendall(b"GET /stats HTTP/1.1\r\nHost: x\r\n\r\n")
            status, _, text = read_answer_keep(probe)
            seen = json.loads(text)["connections_open"] if status == 200 else None
            if seen == 4:
                break
            time.sleep(0.1)
        expect("connections at the cap", seen, 4)
        with rx.connect() as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            status, headers, text, closed = read_answer(s)
            expect("over the cap", (status, json.loads(text or b"null"), headers.get("retry-after"),
                                    headers.get("connection"), closed),
                   (503, {"error": "TOO_MANY_CONNECTIONS"}, "1", "close", True))
        # One closes: a new connection is served again (the server notices the close at once;
        # a few tries for the thread to end).
        held.pop(0).close()
        served = None
        for _ in range(50):
            with rx.connect() as s:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                served = read_answer(s)[0]
            if served == 200:
                break
            time.sleep(0.1)
        expect("served again under the cap", served, 200)
    finally:
        for s in held:
            s.close()
        rx.stop()


def read_answer_keep(sock, timeout=15):
    """One answer on a kept-alive connection (not waiting for a close)."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None, {}, b""
        data += chunk
    head_, _, rest = data.partition(b"\r\n\r\n")
    lines = head_.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
    n = int(headers.get("content-length", "0"))
    while len(rest) < n:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return int(lines[0].split()[1]), headers, rest[:n]


def post_until(rx, make, want, tries=40):
    """Posts ``make(i)`` until the answer is ``want`` (a store coming back), 40 tries."""
    got = None
    for i in range(tries):
        got = rx.post(make(i))[:2]
        if got == want:
            return got
        time.sleep(0.25)
    return got


def hung_store(name, rx, stop, cont, timeout_ms):
    """The store stopped: 503 STORE_UNAVAILABLE within 3 x the timeout plus a second (twice: a
    pooled connection, then a new one); after SIGCONT, processed again."""
    expect(f"{name}: up", rx.post(body(f"evt_{name}_up"))[:2], (200, {"result": "processed"}))
    stop()
    try:
        for i in range(2):
            started = time.monotonic()
            status, answer, headers = rx.post(body(f"evt_{name}_hung_{i}"))
            took = time.monotonic() - started
            expect(f"{name} hung ({i})", (status, answer, headers.get("Retry-After") is not None),
                   (503, {"error": "STORE_UNAVAILABLE"}, True))
            bound = 3 * timeout_ms / 1000 + 1
            expect_true(f"{name} hung ({i}): answered within {bound:.1f} s", took <= bound,
                        f"{took:.2f} s")
            print(f"receiver-python limits: {name} stopped: {status} in {took:.2f} s "
                  f"(store timeout {timeout_ms} ms)", flush=True)
    finally:
        cont()
    got = post_until(rx, lambda i: body(f"evt_{name}_back_{i}"), (200, {"result": "processed"}))
    expect(f"{name}: back after SIGCONT", got, (200, {"result": "processed"}))


def clock_check(name, rx, store_ms, persist):
    """--clock-skew-ms 300000: the claim's time is the store's (within a second), the offset
    about -300000 in /stats and the line, the warning logged."""
    before = store_ms()
    expect(f"{name} skewed: processed", rx.post(body(f"evt_{name}_skew"))[:2],
           (200, {"result": "processed"}))
    after = store_ms()
    with open(persist, encoding="utf-8") as f:
        line = [json.loads(l) for l in f if f"evt_{name}_skew" in l][-1]
    expect_true(f"{name} skewed: claimed_at_ms within a second of the store's clock",
                before - 1000 <= line["claimed_at_ms"] <= after + 1000,
                f"{line['claimed_at_ms']} not in [{before - 1000}, {after + 1000}]")
    expect_true(f"{name} skewed: the line's clock_offset_ms about -300000",
                abs(line.get("clock_offset_ms", 0) + 300_000) < 5000, str(line))
    off = rx.stats().get("clock_offset_ms")
    expect_true(f"{name} skewed: /stats clock_offset_ms about -300000",
                off is not None and abs(off + 300_000) < 5000, repr(off))
    expect_true(f"{name} skewed: the warning logged",
                "ms off the store's clock (corrected)" in rx.stderr(), rx.stderr())


def test_redis(work):
    import redis
    import test_redis

    server, port = test_redis.start_server()
    url = f"redis://127.0.0.1:{port}/0"
    rx = skewed = None
    try:
        rx = Receiver("--redis", url, "--store-timeout-ms", "1000")
        hung_store("redis", rx, lambda: server.send_signal(signal.SIGSTOP),
                   lambda: server.send_signal(signal.SIGCONT), 1000)
        persist = os.path.join(work, "redis-skew.jsonl")
        skewed = Receiver("--redis", url, "--clock-skew-ms", "300000", "--persist", persist)
        client = redis.Redis(port=port)

        def store_ms():
            s, us = client.time()
            return s * 1000 + us // 1000

        clock_check("redis", skewed, store_ms, persist)
        client.close()
    finally:
        for r in (rx, skewed):
            if r is not None:
                r.stop()
        server.send_signal(signal.SIGCONT)
        server.kill()
        server.wait()


def test_completion(work):
    """Redis stopped between the claim and the complete: the completion is retried until Redis
    answers again, so that a redelivery after the lease is a duplicate, not processed again."""
    import redis
    import test_redis

    server, port = test_redis.start_server()
    url = f"redis://127.0.0.1:{port}/0"
    persist = os.path.join(work, "completion.jsonl")
    records = os.path.join(work, "completion-records")
    rx = None
    client = redis.Redis(port=port, socket_timeout=10)
    try:
        # The claim, then 3 s before persisting (Redis is stopped meanwhile), then complete: its
        # load times out (500 ms). The lease (2 s) is over long before Redis comes back.
        rx = Receiver("--redis", url, "--store-timeout-ms", "500", "--persist-delay-ms", "3000",
                      "--lease-ms", "2000", "--clock-sync-ms", "600000", "--persist", persist,
                      "--records", records)
        data = body("evt_cut")
        got = []
        poster = threading.Thread(target=lambda: got.append(rx.post(data, timeout=60)))
        poster.start()
        claimed = False
        for _ in range(200):  # the claim in Redis: 20 s at most
            if client.keys("*evt_cut*"):
                claimed = True
                break
            time.sleep(0.1)
        expect("completion: the claim is in Redis", claimed, True)
        server.send_signal(signal.SIGSTOP)
        try:
            poster.join(timeout=60)
            expect("completion: answered processed while Redis is stopped",
                   got[0][:2] if got else None, (200, {"result": "processed"}))
            st = rx.stats()
            expect("completion: retried, not recovered while Redis is stopped",
                   (st["completions_retried"], st["completions_recovered"],
                    st["completions_retry_pending"]), (1, 0, 1))
            time.sleep(1.0)  # some failed retries; the lease long over
        finally:
            server.send_signal(signal.SIGCONT)
        st = {}
        for _ in range(200):  # 20 s at most for the retry to land
            st = rx.stats()
            if st["completions_retry_pending"] == 0:
                break
            time.sleep(0.1)
        expect("completion: recovered after SIGCONT",
               (st.get("completions_recovered"), st.get("completions_retry_stale"),
                st.get("completions_retry_given_up"), st.get("completions_retry_pending")), (1, 0, 0, 0))
        expect_true("completion: the recovery logged",
                    "complete evt_cut: recovered after" in rx.stderr(), rx.stderr())
        # A redelivery after the lease: the id is done.
        expect("completion: the redelivery is a duplicate", rx.post(data)[:2],
               (200, {"result": "duplicate"}))
        with open(persist, encoding="utf-8") as f:
            lines = [json.loads(l) for l in f if "evt_cut" in l]
        expect("completion: persisted once", [(l["id"], l.get("again", False)) for l in lines],
               [("evt_cut", False)])
        expect("completion: again", rx.stats()["again"], 0)
    finally:
        if rx is not None:
            rx.stop()
        client.close()
        server.send_signal(signal.SIGCONT)
        server.kill()
        server.wait()


def test_drain_idle():
    """A kept-alive connection answered before SIGTERM is served through the drain period
    (--drain-ms 3000): a request written on it 0.5 s after SIGTERM is answered, with
    Connection: close, then the connection closes and the receiver exits 0."""
    rx = Receiver("--drain-ms", "3000")
    try:
        with rx.connect() as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            expect("drain: answered before SIGTERM", read_answer_keep(s)[0], 200)
            rx.p.send_signal(signal.SIGTERM)
            time.sleep(0.5)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            status, headers, text, closed = read_answer(s)
            expect("drain: a request on the idle kept-alive connection after SIGTERM",
                   (status, headers.get("connection"), closed), (200, "close", True))
        expect("drain: exit code", rx.p.wait(timeout=30), 0)
    finally:
        rx.stop()


def test_rolling():
    """SIGTERM while 16 clients post back to back on kept-alive connections (a new connection
    when an answer says Connection: close): every request written is answered. Before writing
    on a kept-alive connection a client looks whether the server closed it (then it is closed
    BEFORE the request: it reconnects); a refused connection ends the client. The one request
    that may go unanswered is the server's documented close: a kept-alive connection still idle
    at the end of the drain period (SIGTERM + --drain-ms) is closed, so a request a client only
    began to write after that instant (the client late, not the server: a busy machine can stall
    a thread that long) can meet the close; it is counted apart (`late`), never as unanswered."""
    drain_s = 1.0
    rx = Receiver("--grace-ms", "10000", "--drain-ms", str(int(drain_s * 1000)))
    n = 16
    counts = dict(answered=0, answered_close=0, closed_before=0, unanswered=0, refused=0,
                  late=0)
    lock = threading.Lock()
    termed = threading.Event()
    termed_at = [float("inf")]  # when SIGTERM was sent (the drain begins after it)
    details = []

    def add(key, n=1):
        with lock:
            counts[key] += n

    def client(k):
        sock = None
        deadline = time.monotonic() + 60
        i = 0
        while time.monotonic() < deadline:
            fresh = sock is None
            if sock is None:
                try:
                    sock = socket.create_connection((rx.host, rx.port), timeout=10)
                except OSError:
                    add("refused")
                    return
            else:
                r, _, _ = select.select([sock], [], [], 0)
                if r:  # EOF (or a reset) before writing: closed before the request
                    sock.close()
                    sock = None
                    add("closed_before")
                    continue
            i += 1
            data = body(f"evt_roll_{k}_{i}")
            sig = xborder.sign(SECRET, data)
            kept_alive = i > 1 and not fresh
            began = time.monotonic()
            try:
                sock.sendall(head("/webhooks", len(data), [f"X-Webhook-Signature: {sig}"]) + data)
                status, headers, _ = read_answer_keep(sock, timeout=20)
            except OSError as e:
                status, headers = None, {}
                why = f"{type(e).__name__}: {e}"
            else:
                why = "closed with no answer"
            if status is None and kept_alive and began >= termed_at[0] + drain_s:
                add("late")  # written after the drain period ended: the server's idle close
                sock.close()
                sock = None
                continue
            if status != 200:
                add("unanswered")
                with lock:
                    details.append(f"client {k} request {i}: {status} {why}")
                sock.close()
                sock = None
                continue
            add("answered")
            if headers.get("connection") == "close":
                add("answered_close")
                sock.close()
                sock = None
        if sock is not None:
            sock.close()

    threads = [threading.Thread(target=client, args=(k,)) for k in range(n)]
    try:
        for t in threads:
            t.start()
        for _ in range(300):  # 30 s at most for 200 answers
            with lock:
                if counts["answered"] >= 200:
                    break
            time.sleep(0.1)
        termed_at[0] = time.monotonic()
        termed.set()
        rx.p.send_signal(signal.SIGTERM)
        code = rx.p.wait(timeout=60)
        for t in threads:
            t.join(timeout=90)
        expect("rolling: every client ended", [t.is_alive() for t in threads], [False] * n)
        print(f"receiver-python limits: SIGTERM under back-to-back kept-alive requests: {counts}",
              flush=True)
        expect("rolling: requests written and not answered", (counts["unanswered"], details),
               (0, []))
        expect_true("rolling: answered", counts["answered"] >= 200, repr(counts))
        expect_true("rolling: answers with Connection: close while draining",
                    counts["answered_close"] >= 1, repr(counts))
        expect("rolling: every client ended on a refused connection", counts["refused"], n)
        expect("rolling: exit code", code, 0)
        time.sleep(0.2)
        expect_true("rolling: the shutdown line",
                    any(l.startswith("shutdown: ") and " in flight answered in " in l
                        for l in rx.stderr().splitlines()), rx.stderr())
    finally:
        termed.set()
        rx.stop()


def cluster_pids(pg_dir):
    """The postmaster of the cluster in ``pg_dir`` and its children."""
    with open(os.path.join(pg_dir, "data", "postmaster.pid")) as f:
        main = int(f.readline())
    pids = [main]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == main:
                pids.append(int(entry))
    return pids


def signal_all(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def test_postgres(work):
    import psycopg

    pg_dir = tempfile.mkdtemp(prefix="xb-rxpy-limits-pg-", dir="/tmp")
    os.chmod(pg_dir, 0o755)
    rx = skewed = pooled = None
    pids = []
    try:
        r = subprocess.run(["bash", str(SERVER_SH), "start", pg_dir], capture_output=True,
                           text=True, env=dict(os.environ, XBORDER_PG_OWNER=str(os.getpid())),
                           timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"postgres did not start: {r.stderr}")
        url = r.stdout.strip().splitlines()[-1]
        rx = Receiver("--postgres", url, "--store-timeout-ms", "1500")
        pids = cluster_pids(pg_dir)
        hung_store("postgres", rx, lambda: signal_all(pids, signal.SIGSTOP),
                   lambda: signal_all(pids, signal.SIGCONT), 1500)
        rx.stop()
        rx = None

        persist = os.path.join(work, "pg-skew.jsonl")
        skewed = Receiver("--postgres", url, "--clock-skew-ms", "300000", "--persist", persist)

        def store_ms():
            with psycopg.connect(url, autocommit=True) as c:
                return int(c.execute("SELECT (extract(epoch from clock_timestamp()) * 1000)"
                                     "::bigint").fetchone()[0])

        clock_check("postgres", skewed, store_ms, persist)
        with psycopg.connect(url, autocommit=True) as c:
            row = c.execute("SELECT claimed_at_ms FROM xborder_events WHERE id = "
                            "'evt_postgres_skew'").fetchone()
        line_ms = None
        with open(persist, encoding="utf-8") as f:
            for l in f:
                if "evt_postgres_skew" in l:
                    line_ms = json.loads(l)["claimed_at_ms"]
        expect("postgres skewed: the row's claimed_at_ms is the corrected one",
               row and row[0], line_ms)
        skewed.stop()
        skewed = None

        # The pool: at most --pool connections under load, all closed after --pool-idle-ms.
        pooled = Receiver("--postgres", url, "--pool", "2", "--pool-idle-ms", "1000",
                          "--clock-sync-ms", "600000")

        def backends():
            with psycopg.connect(url, autocommit=True) as c:
                return c.execute("SELECT count(*) FROM pg_stat_activity WHERE backend_type = "
                                 "'client backend' AND pid <> pg_backend_pid()").fetchone()[0]

        peak = 0
        stop_watch = threading.Event()

        def watch():
            nonlocal peak
            while not stop_watch.is_set():
                peak = max(peak, backends())
                time.sleep(0.05)

        watcher = threading.Thread(target=watch)
        watcher.start()
        outs = []
        threads = [threading.Thread(target=lambda i=i: outs.append(
            pooled.post(body(f"evt_pool_{i}"))[0])) for i in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        stop_watch.set()
        watcher.join()
        expect("pool: 12 concurrent deliveries processed", sorted(outs), [200] * 12)
        expect_true("pool: at most --pool 2 connections", 1 <= peak <= 2, f"peak {peak}")
        left = None
        for _ in range(100):
            left = backends()
            if left == 0:
                break
            time.sleep(0.1)
        expect("pool: idle connections closed after --pool-idle-ms", left, 0)
    finally:
        signal_all(pids, signal.SIGCONT)
        for r in (rx, skewed, pooled):
            if r is not None:
                r.stop()
        subprocess.run(["bash", str(SERVER_SH), "stop", pg_dir], capture_output=True, timeout=60)
        shutil.rmtree(pg_dir, ignore_errors=True)


def test_shutdown(work):
    persist = os.path.join(work, "shutdown.jsonl")
    rx = Receiver("--persist", persist, "--persist-delay-ms", "1500")
    idle = None
    try:
        # A kept-alive connection, idle after its answer.
        idle = rx.connect()
        data = body("evt_idle")
        sig = xborder.sign(SECRET, data)
        idle.sendall(head("/webhooks", len(data), [f"X-Webhook-Signature: {sig}"]) + data)
        expect("idle connection's request", read_answer_keep(idle)[0], 200)
        # Five requests being processed (1.5 s each) and one whose body is half sent.
        results = []
        threads = [threading.Thread(target=lambda i=i: results.append(
            rx.post(body(f"evt_sd_{i}")))) for i in range(5)]
        for t in threads:
            t.start()
        half = rx.connect()
        data = body("evt_half")
        sig = xborder.sign(SECRET, data)
        half.sendall(head("/webhooks", len(data), [f"X-Webhook-Signature: {sig}"]) + data[:10])
        seen = 0
        for _ in range(100):
            seen = rx.stats()["in_flight"]
            if seen >= 7:  # the five, the half one, and /stats itself
                break
            time.sleep(0.05)
        expect_true("six requests in flight before SIGTERM", seen >= 7, f"in flight {seen}")
        rx.p.send_signal(signal.SIGTERM)
        expect("idle connection closed on SIGTERM", wait_closed(idle, 10), True)
        refused = False
        for _ in range(50):
            try:
                socket.create_connection((rx.host, rx.port), timeout=2).close()
            except OSError:
                refused = True
                break
            time.sleep(0.1)
        expect("new connections refused while draining", refused, True)
        half.sendall(data[10:])
        status, headers, text, closed = read_answer(half)
        expect("the half-sent request answered", (status, headers.get("connection"), closed),
               (200, "close", True))
        for t in threads:
            t.join()
        expect("the five in flight answered",
               sorted((s, a["result"], h.get("Connection")) for s, a, h in results),
               [(200, "processed", "close")] * 5)
        code = rx.p.wait(timeout=30)
        expect("exit code after the drain", code, 0)
        time.sleep(0.2)
        line = [l for l in rx.stderr().splitlines() if l.startswith("shutdown:")]
        expect_true("the shutdown line", len(line) == 1 and " in flight answered in " in line[0],
                    repr(line))
        n = int(line[0].split()[1]) if line else -1
        expect_true("the shutdown line counts the six", n >= 6, repr(line))
        with open(persist, encoding="utf-8") as f:
            ids = sorted(json.loads(l)["id"] for l in f)
        expect("persisted", ids, sorted(["evt_idle", "evt_half"] + [f"evt_sd_{i}" for i in range(5)]))
    finally:
        for s in (idle,):
            if s is not None:
                s.close()
        rx.stop()

    # Past the grace: a body that never ends; exit 1 with the count cut.
    rx = Receiver("--grace-ms", "500", "--body-timeout-ms", "60000")
    try:
        s = rx.connect()
        s.sendall(head("/webhooks", 100, ["X-Webhook-Signature: 00"]) + b"{")
        for _ in range(100):
            if rx.stats()["in_flight"] >= 1 + 1:
                break
            time.sleep(0.05)
        rx.p.send_signal(signal.SIGTERM)
        code = rx.p.wait(timeout=30)
        time.sleep(0.2)
        expect("exit code past the grace", code, 1)
        expect_true("the shutdown line says one was cut", "1 cut at the grace" in rx.stderr(),
                    rx.stderr())
        s.close()
    finally:
        rx.stop()


def main():
    only = sys.argv[1:]
    work = tempfile.mkdtemp(prefix="xb-rxpy-limits-")
    tests = [("bodies", lambda: test_bodies(work)), ("trickle", test_trickle),
             ("connections", test_connections),
             ("shutdown", lambda: test_shutdown(work)), ("drain", test_drain_idle),
             ("rolling", test_rolling),
             ("redis", lambda: test_redis(work)), ("completion", lambda: test_completion(work)),
             ("postgres", lambda: test_postgres(work))]
    try:
        for name, fn in tests:
            if only and name not in only:
                continue
            started = time.monotonic()
            before = len(failures)
            try:
                fn()
            except Exception as e:
                import traceback
                traceback.print_exc()
                fail(f"{name}: {type(e).__name__}: {e}")
            print(f"receiver-python limits: {name}: {len(failures) - before} failed "
                  f"({time.monotonic() - started:.1f} s)", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"receiver-python limits: {checks} checks, {len(failures)} failed")
    return 1 if failures or checks == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
