"""Makes the hardened generated module a Python package and a wheel (build step after harden.py).

    python3 package.py DIST_PYTHON_DIR

DIST_PYTHON_DIR holds `xborder.py` (uniffi's module, already rewritten by harden.py) and the
host library. This script

1. adds the native-value conveniences to `xborder.py` (conversion only, no rule):
   - every parameter named `*_json` (drafts, rules documents, bank lists, list parameters, page
     responses) takes a dict or a list as well as JSON text: `_xb_json_arg` checks it is plain
     JSON data (str keys, finite numbers; anything else is a TypeError naming the parameter,
     never a silent `str()`) and `json.dumps` it;
   - the server documents (`rules_json`, `banks_json`) take the response as a client holds it:
     its text (str), its body (bytes, bytearray, memoryview: decoded as UTF-8; bytes that are not
     UTF-8 reach core as a text it cannot read, so core reports RULES_UNREADABLE /
     BANKS_UNREADABLE: `_xb_document_arg` says why) or its parsed JSON (dict, list);
   - the code in `extras.py` (readable `repr`s, `Envelope.data`, `WalkStep.records`, ...) is
     appended to the module;
2. writes the wheel `xborder-<version>-py3-none-<platform>.whl` into DIST_PYTHON_DIR/wheel/: a
   package `xborder/` holding that module as `__init__.py`, the library beside it, the type
   stubs `__init__.pyi` (from `xborder.pyi`) and `py.typed`. The wheel is cached by the hash of
   its inputs in $XBORDER_CACHE/python-wheels/, so an unchanged build reuses it byte for byte.

Why a wheel written here rather than maturin or setuptools: maturin's uniffi mode runs
uniffi-bindgen itself and packs the module it generates, so the hardened and extended module
would not be the one that ships (and the cdylib would be built a second time); setuptools
would need a build dependency from PyPI in every build and a `bdist_wheel` override to mark a
ctypes package as platform-specific but interpreter-independent (`py3-none-<platform>`). A
wheel is a zip with three metadata files (PEP 427); writing it here needs nothing but the
standard library, works offline and is reproducible (fixed timestamps, sorted entries).
"""
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MARK = "# --- xborder: native values, added by bindings-uniffi/python/package.py"

JSON_HELPER = '''

''' + MARK + ''' ------------------------
import json as _xb_json_mod
import math as _xb_math


def _xb_plain(value, param):
    """Checks that value is plain JSON data (iteratively: any depth); the TypeError names the
    parameter and the path."""
    todo = [(value, "$")]
    while todo:
        value, where = todo.pop()
        if value is None or isinstance(value, (str, bool, int)):
            continue
        if isinstance(value, float):
            if not _xb_math.isfinite(value):
                raise ValueError("`%s`: %s is %r, which JSON cannot represent" % (param, where, value))
            continue
        if isinstance(value, dict):
            for k, v in value.items():
                if not isinstance(k, str):
                    raise TypeError("`%s`: the keys of %s must be str, not %s (JSON would silently "
                                    "turn %r into a string)" % (param, where, type(k).__name__, k))
                todo.append((v, "%s.%s" % (where, k)))
            continue
        if isinstance(value, (list, tuple)):
            todo.extend((v, "%s[%d]" % (where, i)) for i, v in enumerate(value))
            continue
        raise TypeError("`%s`: %s is of type %s, which is not JSON data (dict, list, str, int, "
                        "float, bool, None)" % (param, where, type(value).__name__))


def _xb_json_arg(value, param):
    """A JSON-text parameter also takes a dict or a list (made JSON text here); a str is the
    JSON text itself; anything else goes on to the check, which raises TypeError. The server
    documents (`rules_json`, `banks_json`) take more: `_xb_document_arg`."""
    if param in _XB_DOCUMENTS:
        return _xb_document_arg(value, param)
    if isinstance(value, (dict, list, tuple)):
        return _xb_dumps(value, param)
    return value


def _xb_dumps(value, param, ensure_ascii=False):
    _xb_plain(value, param)
    try:
        return _xb_json_mod.dumps(value, ensure_ascii=ensure_ascii, allow_nan=False)
    except RecursionError:
        raise ValueError("`%s`: nested deeper than json.dumps can write; pass the JSON "
                         "text" % param) from None


# The rules document and the bank list, as the server sent them: core reads the response text
# (`ValidationRules::from_json`, `BankList::from_json`) and reports one it cannot read as the
# issue RULES_UNREADABLE / BANKS_UNREADABLE (`required_fields`: the error XborderError.Document).
_XB_DOCUMENTS = frozenset(("rules_json", "banks_json"))
# The text handed to core for a document whose text is not Unicode: bytes that are not UTF-8, a
# str holding lone surrogates (bytes decoded with "surrogateescape"). Such a document is not JSON
# text (RFC 8259 8.1: JSON exchanged is UTF-8), and uniffi cannot carry it: a str crosses as its
# UTF-8 bytes, and Rust takes them unchecked as a String. Decoding it with errors="replace"
# would silently make it readable (a bad byte inside a JSON string becomes U+FFFD and the rest
# parses); raising here, or building the issue here, would decide in the binding. So core gets
# a text it reads the same way it reads those bytes themselves (`from_json(&[u8])`: not JSON,
# Unreadable::NotJson) and says so with its own code and message: U+FFFD alone, the character
# that stands for what could not be decoded, which is no JSON text (a JSON text is one value).
_XB_NOT_UNICODE = "\\ufffd"


def _xb_document_arg(value, param):
    """A document as the caller holds it: None (not given), the response text (str, handed to
    core unchanged), the response body (bytes, bytearray, memoryview: its UTF-8 text) or the
    parsed response (dict, list: its JSON text). Any other kind is a TypeError naming `param`."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value
    elif isinstance(value, (bytes, bytearray, memoryview)):
        raw = value.tobytes() if isinstance(value, memoryview) else value
        try:
            return raw.decode("utf-8")  # valid UTF-8: no lone surrogate can come out
        except UnicodeDecodeError:
            return _XB_NOT_UNICODE
    elif isinstance(value, (dict, list, tuple)):
        text = _xb_dumps(value, param)
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate in a str of the data: JSON escapes
                return _xb_dumps(value, param, ensure_ascii=True)  # core reads them, or not
        return text
    else:
        raise TypeError("`%s` must be the server's response: its text (str), its body (bytes, "
                        "bytearray, memoryview), its parsed JSON (dict, list), or None when not "
                        "given; not %s" % (param, type(value).__name__))
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return _XB_NOT_UNICODE
    return text
# --- end of native values ----------------------------------------------------------------------
'''


def add_conveniences(text):
    if MARK in text:
        return text
    # Every check of a JSON-text argument converts a dict or list first.
    text, n = re.subn(
        r"^( +)_xb_check\((_UniffiFfiConverter(?:Optional)?String), (\w+_json), \"(\3)\"\)$",
        r'\1\3 = _xb_json_arg(\3, "\3")\n\1_xb_check(\2, \3, "\3")', text, flags=re.M)
    if n < 6:
        raise SystemExit("package.py: %d JSON-text argument checks found (want >= 6): run "
                         "harden.py first, or the generated module changed" % n)
    anchor = text.find("\nclass ")
    text = text[:anchor] + JSON_HELPER + text[anchor:]
    with open(os.path.join(HERE, "extras.py"), encoding="utf-8") as f:
        text += "\n\n" + f.read()
    compile(text, "xborder.py", "exec")
    return text


def version():
    with open(os.path.join(ROOT, "Cargo.toml"), encoding="utf-8") as f:
        m = re.search(r'^\[workspace\.package\][^\[]*?^version = "([^"]+)"', f.read(), re.M | re.S)
    if not m:
        raise SystemExit("package.py: no [workspace.package] version in Cargo.toml")
    return m.group(1)


def metadata(ver):
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return ("Metadata-Version: 2.1\nName: xborder\nVersion: %s\n"
            "Summary: Cross-border payments API core: webhook verification and receipt, "
            "beneficiary validation, pagination, claims (Rust, through uniffi)\n"
            "License: MIT OR Apache-2.0\nRequires-Python: >=3.8\n"
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


def build_wheel(dist, out_dir):
    """The wheel of dist (xborder.py, the library), in out_dir; cached by its inputs' hash."""
    libs = [n for n in os.listdir(dist) if n.startswith("libxborder_ffi.")]
    if len(libs) != 1:
        raise SystemExit("package.py: want one libxborder_ffi.* in %s, found %s" % (dist, libs))
    ver = version()
    wheel_tag = tag(os.path.join(dist, libs[0]))
    files = {  # path in the wheel -> bytes
        "xborder/__init__.py": open(os.path.join(dist, "xborder.py"), "rb").read(),
        "xborder/" + libs[0]: open(os.path.join(dist, libs[0]), "rb").read(),
        "xborder/__init__.pyi": open(os.path.join(HERE, "xborder.pyi"), "rb").read(),
        "xborder/py.typed": b"",
    }
    info = "xborder-%s.dist-info/" % ver
    files[info + "METADATA"] = metadata(ver).encode("utf-8")
    files[info + "WHEEL"] = ("Wheel-Version: 1.0\nGenerator: xborder package.py\n"
                             "Root-Is-Purelib: false\nTag: %s\n" % wheel_tag).encode()
    files[info + "top_level.txt"] = b"xborder\n"
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


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: python3 package.py DIST_PYTHON_DIR")
    dist = sys.argv[1]
    path = os.path.join(dist, "xborder.py")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if "_xb_require_list" not in text:
        raise SystemExit("package.py: %s is not hardened: run harden.py first" % path)
    text = add_conveniences(text)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    build_wheel(dist, os.path.join(dist, "wheel"))


if __name__ == "__main__":
    main()
