"""A throwaway PostgreSQL server for the tests (test_sql.py, test_readme.py): the project's
tests/servers/postgres.sh (initdb in a fresh folder under /tmp, trust, a free loopback port; as
the postgres user when run as root), stopped by the caller, also on failure:

    server = pg_server.start()
    try:
        ... server.url ...
    finally:
        server.stop()

The script's watchdog (XBORDER_PG_OWNER) also stops it and removes the folder when this process
dies without stopping it."""

import os
import pathlib
import shutil
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "tests" / "servers" / "postgres.sh"


class Server:
    def __init__(self, folder: str, url: str) -> None:
        self.folder = folder
        self.url = url

    def stop(self) -> None:
        subprocess.run(["bash", str(SCRIPT), "stop", self.folder], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=60)
        shutil.rmtree(self.folder, ignore_errors=True)


def start() -> Server:
    """A started server (raises when it does not start, with the script's words)."""
    folder = tempfile.mkdtemp(prefix="xb-python-pg-", dir="/tmp")
    os.chmod(folder, 0o755)
    env = dict(os.environ, XBORDER_PG_OWNER=str(os.getpid()))
    r = subprocess.run(["bash", str(SCRIPT), "start", folder], capture_output=True, text=True,
                       env=env, timeout=120)
    lines = r.stdout.strip().splitlines()
    if r.returncode != 0 or not lines:
        Server(folder, "").stop()
        raise RuntimeError("tests/servers/postgres.sh start failed (%d): %s"
                           % (r.returncode, r.stderr.strip()))
    return Server(folder, lines[-1])
