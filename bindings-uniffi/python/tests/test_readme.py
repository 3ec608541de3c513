"""Runs the README snippets as written, each in its own interpreter, from a scratch folder.

    python test_readme.py bindings-uniffi/dist-readme/python.md
    python test_readme.py --extract README.md DIR   (each python block as DIR/readme_<line>.py)

The package README (the first path): every ```python block but the app one (served by
test_fastapi.py), and its ```sh install block (run
with bash in a scratch folder where `bindings-uniffi` links to this checkout's; the virtualenv it
makes must then import the installed package). The other paths (the dist READMEs,
whose first code block is the one run, as for Kotlin and Swift): their first ```python block.
A snippet passes when it exits 0; each asserts what it shows. A snippet that reads
DATABASE_URL gets a throwaway PostgreSQL server (pg_server.py: tests/servers/postgres.sh),
started for the run and stopped at its end, unless DATABASE_URL is set already.
"""
import os
import subprocess
import sys
import tempfile


APP_MARK = "<!-- fastapi-app"  # the next python block is an app uvicorn serves (test_fastapi.py)


def blocks(path, lang="python", apps=False):
    """The ```lang blocks of a README as (first line, code): the app blocks (after APP_MARK)
    only when apps is True, the others only when it is False (None: all)."""
    out, cur, line_no, app, is_app = [], None, 0, False, False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if cur is None and line.startswith(APP_MARK):
                app = True
            elif cur is None and line.rstrip("\n") == "```" + lang:
                cur, line_no, is_app, app = [], n + 1, app, False
            elif cur is not None and line.startswith("```"):
                if apps is None or apps == is_app:
                    out.append((line_no, "".join(cur)))
                cur = None
            elif cur is not None:
                cur.append(line)
    if cur is not None:
        raise SystemExit("%s: a ```python block is not closed" % path)
    return out


def extract(path, out_dir, apps=None):
    """Writes each python block of path to out_dir/readme_<line>.py (for mypy --strict)."""
    os.makedirs(out_dir, exist_ok=True)
    names = []
    for line_no, code in blocks(path, apps=apps):
        name = os.path.join(out_dir, "readme_%d.py" % line_no)
        with open(name, "w", encoding="utf-8") as f:
            f.write(code)
        names.append(name)
    return names


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--extract":
        print("\n".join(extract(sys.argv[2], sys.argv[3])))
        return 0
    if len(sys.argv) < 2:
        raise SystemExit("usage: python test_readme.py PACKAGE_README [DIST_README ...]")
    server = None
    if "DATABASE_URL" not in os.environ and any(
            "DATABASE_URL" in code for path in sys.argv[1:] for _, code in blocks(path)):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import pg_server
        server = pg_server.start()
        os.environ["DATABASE_URL"] = server.url
    try:
        return run_all()
    finally:
        if server is not None:
            server.stop()


def run_all():
    failed = ran = 0
    for i, path in enumerate(sys.argv[1:]):
        found = blocks(path)
        if not found:
            print("FAIL %s: no ```python block" % path)
            failed += 1
            continue
        for line_no, code in (found if i == 0 else found[:1]):
            with tempfile.TemporaryDirectory() as scratch:
                # The snippet is compiled with its README line numbers in tracebacks.
                runner = ("import sys\ncode = sys.stdin.read()\n"
                          "exec(compile('\\n' * %d + code, %r, 'exec'), {'__name__': '__main__'})"
                          % (line_no - 1, path))
                r = subprocess.run([sys.executable, "-c", runner], input=code, text=True,
                                   cwd=scratch, capture_output=True, timeout=120)
            ran += 1
            where = "%s:%d" % (os.path.basename(path), line_no)
            if r.returncode == 0:
                print("ok   %s" % where)
            else:
                failed += 1
                print("FAIL %s (exit %d)\n%s%s" % (where, r.returncode, r.stdout, r.stderr))
    for line_no, code in blocks(sys.argv[1], "sh"):
        ran += 1
        where = "%s:%d (sh)" % (os.path.basename(sys.argv[1]), line_no)
        uniffi = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        with tempfile.TemporaryDirectory() as scratch:
            os.symlink(uniffi, os.path.join(scratch, "bindings-uniffi"))
            env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INDEX="1")
            env.pop("PYTHONPATH", None)
            r = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=scratch, env=env,
                               capture_output=True, text=True, timeout=300)
            if r.returncode == 0:
                r = subprocess.run([os.path.join(scratch, ".venv", "bin", "python"), "-c",
                                    "import xborder, sys; assert 'site-packages' in xborder.__file__, "
                                    "xborder.__file__; xborder.sign('s', b'x')"],
                                   cwd=scratch, env=env, capture_output=True, text=True)
        if r.returncode == 0:
            print("ok   %s" % where)
        else:
            failed += 1
            print("FAIL %s (exit %d)\n%s%s" % (where, r.returncode, r.stdout, r.stderr))
    print("readme snippets: %d run, %d failed" % (ran, failed))
    return 1 if failed or not ran else 0


if __name__ == "__main__":
    sys.exit(main())
