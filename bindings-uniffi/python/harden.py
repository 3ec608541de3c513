"""Hardens uniffi's generated Python module against Python's silent coercions.

uniffi's Python converters accept whatever iterates or indexes like the declared type, and in
Python some wrong values do:

- a `str` iterates as one-character strings, so `verify_with_secrets("whsec_x", ...)` would key
  one HMAC per character and accept a body signed with the key "w" (issue 12); `bytes`,
  `bytearray` and `memoryview` iterate as ints, a `dict` as its keys, a generator is consumed
  by the check and then has no `len`;
- `True`/`False` are ints (`window=True` would be a window of 1);
- any object is a bool (`check_lower` of a bool is `not not value`);
- a `memoryview` of non-byte items (`array('I')`) reports its length in items, not bytes;
- a dict or a str given for a record (`limits`, `request`) fails with an AttributeError;
- what a store written in Python (a `ClaimStore` subclass) returns is lowered unchecked: a
  `compare_and_set` answering `1` or `"0"` would be read as applied (two instances would both
  think they hold a claim), a `load` answering `bytes` would fail deep inside.

This script rewrites the generated module (the build's own output, never a source file) so
that each of these raises `TypeError`, naming the parameter and how to pass it (a store's wrong
answer is a `TypeError` inside the callback, which fails the step with `STORE_UNAVAILABLE`),
and so that a body may be `bytes`, `bytearray`, `memoryview` (any format: its raw bytes) or
`str` (its UTF-8 bytes). It refuses to write a module it could not patch completely, so a uniffi upgrade that
changes the generated code fails the build instead of silently dropping a guard.

Usage: python3 harden.py path/to/xborder.py
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from rewrite import rewrite  # noqa: E402  (bindings-uniffi/rewrite.py)

# How to pass each list parameter of the public API: shown in the TypeError.
HINTS = {
    "secrets": 'pass one secret as verify(secret, ...) / Receiver(secret); several (a key '
               'rotation) as a list: verify_with_secrets(["whsec_old", "whsec_new"], ...) / '
               'Receiver.with_secrets(["whsec_old", "whsec_new"])',
    "events": 'pass a list of event names: ["order:created"]',
    "subscriptions": 'pass a list of event names or wildcards: ["order:*"]',
}

HELPERS = '''

# --- xborder: guards added by bindings-uniffi/python/harden.py -------------------------------
_XB_HINTS = %r


def _xb_require_list(value, param=None):
    """A list parameter must be a real collection of items, never text, bytes or a mapping."""
    name = "`%%s`" %% param if param else "a list argument"
    hint = _XB_HINTS.get(param, "pass a list, e.g. [item]")
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        raise TypeError("%%s must be a list, not %%s: a %%s is never split into items; %%s"
                        %% (name, type(value).__name__, type(value).__name__, hint))
    if isinstance(value, dict) or hasattr(value, "keys"):
        raise TypeError("%%s must be a list, not a mapping (%%s); %%s"
                        %% (name, type(value).__name__, hint))
    try:
        len(value)
        iter(value)
    except TypeError:
        raise TypeError("%%s must be a list (a sized collection), not %%s; %%s"
                        %% (name, type(value).__name__, hint)) from None


def _xb_check(converter, value, param):
    """`converter.check_lower(value)`, with the parameter named in its TypeError."""
    if converter.__name__.startswith("_UniffiFfiConverterSequence"):
        _xb_require_list(value, param)
    try:
        converter.check_lower(value)
    except TypeError as e:
        if str(e).startswith("`"):
            raise
        raise TypeError("`%%s`: %%s" %% (param, e)) from None
    except AttributeError:
        # A record converter reads the record's fields: anything else is the wrong kind.
        raise TypeError("`%%s`: expected %%s, not %%s" %% (
            param, converter.__name__.replace("_UniffiFfiConverter", "").replace(
                "Optional", "optional ").replace("Type", ""), type(value).__name__)) from None


def _xb_check_return(converter, value):
    """What a method of a store written in Python returns, checked as an argument is (a bool is
    a bool, a text a str or None): the TypeError fails the step with STORE_UNAVAILABLE."""
    try:
        converter.check_lower(value)
    except (TypeError, AttributeError) as e:
        raise TypeError("a store method returned %%s, not what it must (%%s)"
                        %% (type(value).__name__, e)) from None


def _xb_require_bytes(value):
    """The check of a body: its kind only, no copy (`_xb_bytes` converts it once, when written)."""
    if isinstance(value, (bytes, str)):
        return
    try:
        memoryview(value)
    except TypeError:
        raise TypeError("a body must be bytes, bytearray, memoryview or str (UTF-8), not %%s"
                        %% type(value).__name__) from None


def _xb_bytes(value):
    """The raw bytes of a body: bytes as they are, a str as UTF-8, any buffer's raw bytes."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    try:
        return memoryview(value).tobytes()
    except TypeError:
        raise TypeError("a body must be bytes, bytearray, memoryview or str (UTF-8), not %%s"
                        %% type(value).__name__) from None
# --- end of xborder guards ---------------------------------------------------------------------
''' % (HINTS,)


def patch(text):
    counts = {}

    def sub(name, pattern, repl, flags=re.M, expect_min=1):
        nonlocal text
        text, n = re.subn(pattern, repl, text, flags=flags)
        counts[name] = n
        if n < expect_min:
            raise SystemExit("harden.py: pattern %r matched %d times (want >= %d): the "
                             "generated module changed; update harden.py" % (name, n, expect_min))

    # 1. Every sequence converter refuses text, bytes, mappings and unsized iterables, wherever
    #    it is used (arguments, record fields, nested sequences).
    sub("sequence converters",
        r"^(class _UniffiFfiConverterSequence\w+\(_UniffiConverterRustBuffer\):\n"
        r"    @classmethod\n"
        r"    def check_lower\(cls, value\):\n)",
        r"\1        _xb_require_list(value)\n")
    # 2. Where a function or method checks its own arguments (4 or 8 spaces in, a bare name),
    #    the check names the parameter, and a list parameter gets the list guard with its hint.
    sub("argument checks",
        r"^( {4}| {8})(_UniffiFfiConverter\w+)\.check_lower\((?!value\b|item\b)(\w+)\)$",
        r'\1_xb_check(\2, \3, "\3")', expect_min=10)
    # 3. Integers: a bool is not an integer here.
    sub("int converter",
        r"^(class _UniffiConverterPrimitiveInt\(_UniffiConverterPrimitive\):\n"
        r"    @classmethod\n"
        r"    def check_lower\(cls, value\):\n)",
        r"\1        if isinstance(value, bool):\n"
        r"            raise TypeError('%s requires an int, not bool' % cls.CLASS_NAME)\n")
    # 4. Booleans: only a bool.
    sub("bool converter",
        r"^(class _UniffiFfiConverterBoolean:\n"
        r"    @classmethod\n"
        r"    def check_lower\(cls, value\):\n)"
        r"        return not not value\n",
        r"\1        if not isinstance(value, bool):\n"
        r"            raise TypeError('a bool is required, not %s' % type(value).__name__)\n"
        r"        return value\n")
    # 5. Bodies: the raw bytes of any buffer, or a str's UTF-8 bytes, counted in bytes.
    sub("bytes check",
        r"^(class _UniffiFfiConverterBytes\(_UniffiConverterRustBuffer\):\n"
        r"(?:.*\n)*?"
        r"    def check_lower\(value\):\n)"
        r"        try:\n"
        r"            memoryview\(value\)\n"
        r"        except TypeError:\n"
        r"            raise TypeError\(.*\)\n",
        r"\1        _xb_require_bytes(value)\n")
    sub("bytes write",
        r"^(class _UniffiFfiConverterBytes\(_UniffiConverterRustBuffer\):\n"
        r"(?:.*\n)*?"
        r"    def write\(value, buf\):\n)"
        r"        buf.write_i32\(len\(value\)\)\n"
        r"        buf.write\(value\)\n",
        r"\1        value = _xb_bytes(value)\n"
        r"        buf.write_i32(len(value))\n"
        r"        buf.write(value)\n")
    # 6. Foreign trait methods (a ClaimStore written in Python): their answers are checked
    #    before they are lowered, as arguments are.
    sub("callback returns",
        r"^( +)(uniffi_out_return\[0\] = )(_UniffiFfiConverter\w+)(\.lower\(v\))$",
        r"\1_xb_check_return(\3, v)\n\1\2\3\4", expect_min=2)
    # 7. Enums (a ClaimOutcome argument): anything but one of the enum's members is the wrong
    #    kind (uniffi raises ValueError, as for a wrong value): a str such as "stale" included.
    sub("enum checks",
        r"^(class _UniffiFfiConverterType(\w+)\(_UniffiConverterRustBuffer\):\n"
        r"(?:(?!class ).*\n)*?"
        r"    def check_lower\(value\):\n"
        r"(?:(?!class ).*\n)*?)"
        r"        raise ValueError\(value\)\n",
        r"\1        raise TypeError('a \2 is required (xborder.\2.<MEMBER>), not %s' % type(value).__name__)\n",
        expect_min=5)
    # The helpers go after the module's imports, before the first converter.
    anchor = text.find("\nclass ")
    if anchor < 0:
        raise SystemExit("harden.py: no class in the generated module")
    text = text[:anchor] + HELPERS + text[anchor:]
    return text, counts


def transform(text, path):
    text, counts = patch(text)
    compile(text, path, "exec")
    return text, ", ".join("%s %d" % kv for kv in counts.items())


def main():
    rewrite("harden.py", "_xb_require_list", "is already hardened", transform)


if __name__ == "__main__":
    main()
