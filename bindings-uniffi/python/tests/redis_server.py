"""A throwaway redis-server for the tests (test_redis.py, test_fastapi.py): on a free loopback
port, no persistence; stopped by the caller (``server.kill()``)."""

import os
import socket
import subprocess
import time
from typing import Tuple

import redis


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start() -> Tuple["subprocess.Popen[bytes]", int]:
    """A redis-server on a free port (five tries); waits until it answers (5 s at most)."""
    why = ""
    for _ in range(5):
        port = free_port()
        server = subprocess.Popen(
            [os.environ.get("XBORDER_REDIS_SERVER", "redis-server"), "--port", str(port),
             "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL)
        why = "redis-server did not listen on %d within 5 s" % port
        probe = redis.Redis(port=port)
        for _ in range(100):
            try:
                probe.ping()
                probe.close()
                return server, port
            except redis.ConnectionError:
                if server.poll() is not None:
                    why = "redis-server exited (%s) before it listened" % server.returncode
                    break
                time.sleep(0.05)
        probe.close()
        server.kill()
        server.wait()
    raise RuntimeError(why)
