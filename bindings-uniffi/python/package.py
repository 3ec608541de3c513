"""Checks the speed module against the generated module and writes the wheel (a build step of
bindings-uniffi/build.sh, which has laid out DIST_PYTHON_DIR/xborder/, the hand-written package
of bindings-uniffi/python/xborder/, and DIST_PYTHON_DIR/_xborder_ffi/: uniffi's generated module,
as uniffi wrote it, and the host library).

    python3 package.py DIST_PYTHON_DIR

1. ``xborder/_speed.py`` (the labelled speed measure: leaner call and buffer helpers, installed
   by attribute assignment at import) must fit: written for Cargo.lock's uniffi version, and the
   generated helpers it replaces are the ones it knows (``_speed.check``). Otherwise the build
   fails here, with what changed. Nothing rewrites the generated text.
2. The SQL claim stores' migrations (stores/sql/migrations/*.sql, the one source: the Rust
   crate includes the same files) copied into DIST_PYTHON_DIR/xborder/migrations/, where
   ``xborder.postgres`` and ``xborder.sqlite`` read them (``MIGRATION``).
3. The wheel ``xborder-<version>-py3-none-<platform>.whl`` into DIST_PYTHON_DIR/wheel/: the
   package as laid out, its METADATA (the README, dist-readme/python.md; the extras ``redis``
   and ``postgres``).
   It is cached by the hash of its inputs in $XBORDER_CACHE/python-wheels/, so an unchanged
   build reuses it byte for byte.

Why a wheel written here rather than maturin or setuptools: maturin's uniffi mode runs
uniffi-bindgen itself and lays out the package its own way (and would build the cdylib a second
time); setuptools would need a build dependency from PyPI in every build and a ``bdist_wheel``
override to mark a ctypes package as platform-specific but interpreter-independent
(``py3-none-<platform>``). A wheel is a zip with three metadata files (PEP 427); writing it here
needs nothing but the standard library, works offline and is reproducible (fixed timestamps,
sorted entries).
"""
import base64
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
README = os.path.join(os.path.dirname(HERE), "dist-readme", "python.md")
MIGRATIONS = os.path.join(ROOT, "stores", "sql", "migrations")


def version():
    with open(os.path.join(ROOT, "Cargo.toml"), encoding="utf-8") as f:
        m = re.search(r'^\[workspace\.package\][^\[]*?^version = "([^"]+)"', f.read(), re.M | re.S)
    if not m:
        raise SystemExit("package.py: no [workspace.package] version in Cargo.toml")
    return m.group(1)


def metadata(ver):
    with open(README, encoding="utf-8") as f:
        readme = f.read()
    return ("Metadata-Version: 2.1\nName: xborder\nVersion: %s\n"
            "Summary: Cross-border payments API core: webhook verification and receipt, "
            "beneficiary validation, pagination, claims (Rust, through uniffi)\n"
            "License: MIT OR Apache-2.0\nRequires-Python: >=3.8\n"
            "Provides-Extra: redis\nRequires-Dist: redis>=5; extra == \"redis\"\n"
            "Provides-Extra: postgres\nRequires-Dist: psycopg>=3.2; extra == \"postgres\"\n"
            "Description-Content-Type: text/markdown\n\n%s" % (ver, readme))


# The libraries a manylinux wheel may link against (PEP 600: the system's own).
MANYLINUX_LIBS = {b"libc.so.6", b"libm.so.6", b"libgcc_s.so.1", b"libpthread.so.0", b"libdl.so.2",
                  b"librt.so.1", b"ld-linux-x86-64.so.2", b"ld-linux-aarch64.so.1"}


def glibc_needed(lib):
    """The newest GLIBC_2.N symbol version the library needs (its .dynstr names each), or None."""
    found = [int(m) for m in re.findall(rb"GLIBC_2\.(\d+)(?![\d.])", lib)]
    return max(found) if found else None


def needed_libs(path):
    """The library's DT_NEEDED names (readelf), or None when readelf is not there."""
    try:
        out = subprocess.run(["readelf", "-d", path], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return set(re.findall(rb"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out))


def tag(lib_path):
    """PEP 600's manylinux_2_N tag on Linux when the library needs glibc 2.N at most and links
    only the system's libraries (so pip installs it on any such distribution, and refuses it on
    an older glibc); the plain platform tag otherwise."""
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    if plat.startswith("linux_"):
        with open(lib_path, "rb") as f:
            glibc = glibc_needed(f.read())
        libs = needed_libs(lib_path)
        if glibc is not None and libs is not None and libs <= MANYLINUX_LIBS:
            return "py3-none-manylinux_2_%d_%s" % (glibc, plat[len("linux_"):])
    return "py3-none-%s" % plat


def package_files(pkg):
    """Path in the wheel -> bytes, for every file of the package folder (no caches)."""
    files = {}
    for folder, dirs, names in os.walk(pkg):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for n in sorted(names):
            if n.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(folder, n)
            rel = os.path.relpath(path, os.path.dirname(pkg)).replace(os.sep, "/")
            with open(path, "rb") as f:
                files[rel] = f.read()
    return files


def build_wheel(dist, out_dir):
    """The wheel of dist/xborder (the package) and dist/_xborder_ffi (the generated module and
    the library), in out_dir; cached by its inputs' hash."""
    lib_dir = os.path.join(dist, "_xborder_ffi")
    libs = [n for n in os.listdir(lib_dir) if n.startswith("libxborder_ffi.")]
    if len(libs) != 1:
        raise SystemExit("package.py: want one libxborder_ffi.* in %s, found %s" % (lib_dir, libs))
    ver = version()
    wheel_tag = tag(os.path.join(lib_dir, libs[0]))
    files = package_files(os.path.join(dist, "xborder"))
    files.update(package_files(lib_dir))
    info = "xborder-%s.dist-info/" % ver
    files[info + "METADATA"] = metadata(ver).encode("utf-8")
    files[info + "WHEEL"] = ("Wheel-Version: 1.0\nGenerator: xborder package.py\n"
                             "Root-Is-Purelib: false\nTag: %s\n" % wheel_tag).encode()
    files[info + "top_level.txt"] = b"_xborder_ffi\nxborder\n"
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    key = h.hexdigest()[:16]
    name = "xborder-%s-%s.whl" % (ver, wheel_tag)
    cache = os.path.join(os.environ.get("XBORDER_CACHE") or os.path.expanduser("~/.cache/xborder"),
                         "python-wheels", key)
    cached = os.path.join(cache, name)
    if not os.path.isfile(cached):
        record = []
        for n in sorted(files):
            digest = base64.urlsafe_b64encode(hashlib.sha256(files[n]).digest()).rstrip(b"=")
            record.append("%s,sha256=%s,%d" % (n, digest.decode(), len(files[n])))
        record.append(info + "RECORD,,")
        files[info + "RECORD"] = ("\n".join(record) + "\n").encode()
        os.makedirs(cache, exist_ok=True)
        tmp = cached + ".tmp"
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            for n in sorted(files, key=lambda p: (p.startswith(info), p)):  # dist-info last
                zi = zipfile.ZipInfo(n, date_time=(1980, 1, 1, 0, 0, 0))
                zi.compress_type = zipfile.ZIP_DEFLATED
                zi.external_attr = (0o755 if n.endswith((".so", ".dylib")) else 0o644) << 16
                z.writestr(zi, files[n])
        os.replace(tmp, cached)
        print("package.py: wrote %s (inputs %s)" % (name, key))
    else:
        print("package.py: reused %s (inputs %s, unchanged)" % (name, key))
    os.makedirs(out_dir, exist_ok=True)
    shutil.copyfile(cached, os.path.join(out_dir, name))
    with open(os.path.join(out_dir, "INPUTS"), "w") as f:
        f.write(key + "\n")
    return os.path.join(out_dir, name)


def uniffi_version():
    with open(os.path.join(ROOT, "Cargo.lock"), encoding="utf-8") as f:
        m = re.search(r'^name = "uniffi"\nversion = "([^"]+)"', f.read(), re.M)
    if not m:
        raise SystemExit("package.py: no uniffi package in Cargo.lock")
    return m.group(1)


def check_speed(generated):
    """The speed module (xborder/_speed.py) fits the generated module: the uniffi version it
    was written for is Cargo.lock's, and the helpers it replaces are the ones it knows."""
    spec = importlib.util.spec_from_file_location("_xb_speed", os.path.join(HERE, "xborder", "_speed.py"))
    speed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(speed)
    problems = []
    if speed.UNIFFI_VERSION != uniffi_version():
        problems.append("it was written for uniffi %s, Cargo.lock has %s"
                        % (speed.UNIFFI_VERSION, uniffi_version()))
    with open(generated, encoding="utf-8") as f:
        problems += speed.check(f.read())
    if problems:
        raise SystemExit("package.py: bindings-uniffi/python/xborder/_speed.py does not fit the "
                         "generated module; check it against the new uniffi, then update it (or "
                         "drop it, measuring the Python rows of tests/bench/BENCHMARKS.md):\n  "
                         + "\n  ".join(problems))
    print("package.py: _speed.py fits the generated module (uniffi %s)" % speed.UNIFFI_VERSION)


def copy_migrations(dist):
    """stores/sql/migrations/*.sql into the package (xborder/migrations/), replacing what was
    there: the files the Rust crate includes, byte for byte."""
    names = sorted(n for n in os.listdir(MIGRATIONS) if n.endswith(".sql"))
    for want in ("postgres.sql", "sqlite.sql"):
        if want not in names:
            raise SystemExit("package.py: no %s in %s" % (want, MIGRATIONS))
    out = os.path.join(dist, "xborder", "migrations")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    for n in names:
        shutil.copyfile(os.path.join(MIGRATIONS, n), os.path.join(out, n))
    print("package.py: copied %s from stores/sql/migrations/" % ", ".join(names))


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: python3 package.py DIST_PYTHON_DIR")
    dist = sys.argv[1]
    generated = os.path.join(dist, "_xborder_ffi", "xborder.py")
    if not os.path.isfile(generated):
        raise SystemExit("package.py: no generated module at %s" % generated)
    check_speed(generated)
    copy_migrations(dist)
    build_wheel(dist, os.path.join(dist, "wheel"))


if __name__ == "__main__":
    main()
