#!/usr/bin/env python3
"""Core's account-detail checks against python-stdnum, schwifty and clabe (issue 22).

Run it with the oracles' virtualenv (bash tests/accounts/run.sh makes it and builds the Rust
binary):

    python check.py --bin target/release/accounts [--count 10000] [--seed 22]

1. The IBAN registry: core's, read back through its public API by `accounts registry` (each
   country's length, check digits and BBAN structure position by position; every other pair of
   letters refused as an unknown country), compared with python-stdnum's iban.dat and with
   schwifty's registry.
2. The BIC's country codes: all 676 pairs of letters, core against python-stdnum's list.
3. The differential test: for IBAN, BIC, CLABE, CBU and CUIT, at least --count values each,
   generated from a fixed seed: valid ones from the oracles' registries, generators and
   check-digit functions, and from each of them invalid ones (one digit changed, two adjacent
   different digits swapped, and for the layout rules a letter for a digit or the reverse, one
   character dropped or added, a country letter changed). Each value is judged by core (one
   `accounts check` process for all of them) and by every oracle that applies the same rules:
   what an oracle checks and FORMAT.md does not is left out, value by value, and counted
   (README.md, "Exclusions").

Prints `accounts: <kind>: <N> values (<V> valid, <I> invalid), <D> disagreements` per kind and a
closing line; exits 1 on any disagreement or registry difference, printing the first few with
every verdict.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import string
import subprocess
import sys
import time
from collections import Counter
from importlib.metadata import version

import clabe
import pycountry
import stdnum
import stdnum.ar.cbu
import stdnum.ar.cuit
import stdnum.bic
import stdnum.iban
from stdnum.iso7064 import mod_97_10
from schwifty import BIC, IBAN
from schwifty import registry as schwifty_registry
from schwifty.exceptions import SchwiftyException

DIGITS = string.digits
LETTERS = string.ascii_uppercase
ALNUM = DIGITS + LETTERS
SHOW = 10  # disagreements printed per kind

failures: list[str] = []


def say(line: str) -> None:
    print(f"accounts: {line}", flush=True)


# --- the registries ---------------------------------------------------------------------------

def stdnum_registry() -> tuple[dict[str, str], str]:
    """python-stdnum's iban.dat: {country: BBAN structure as in the file}, and its source line."""
    path = os.path.join(os.path.dirname(stdnum.__file__), "iban.dat")
    entries, source = {}, ""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                source = source or line[1:].strip()
                continue
            if not line.strip():
                continue
            cc, rest = line.split(" ", 1)
            m = re.search(r'bban="([^"]*)"', rest)
            if not m:
                raise SystemExit(f"accounts: cannot read iban.dat line {line!r}")
            entries[cc] = m.group(1)
    return entries, source


def expand(structure: str) -> str:
    """`4!a6!n8!n` (or `4a14n`) as one kind letter per position: `aaaannnnnnnnnnnnnn`."""
    parts = re.findall(r"(\d+)!?([nac])", structure)
    if "".join(n + "!" + k for n, k in parts).replace("!", "") != structure.replace("!", ""):
        raise SystemExit(f"accounts: cannot read the structure {structure!r}")
    return "".join(k * int(n) for n, k in parts)


def runs(kinds: str) -> str:
    """`aaaannnnnnnnnnnnnn` as `4a14n`."""
    return "".join(f"{len(m.group(0))}{m.group(1)}" for m in re.finditer(r"(.)\1*", kinds))


def schwifty_specs() -> dict[str, dict]:
    """schwifty's IBAN registry (generated.json with overwrite.json applied), by country."""
    # The module-level helpers read one country at a time; the merged table is the registry's.
    return schwifty_registry._default_registry._get("iban")  # noqa: SLF001


def core_registry(binary: str, dat: dict[str, str]) -> tuple[dict[str, dict], int]:
    hints = "".join(json.dumps({"country": cc, "structure": s}) + "\n" for cc, s in dat.items())
    out = subprocess.run([binary, "registry"], input=hints, capture_output=True, text=True,
                         check=False)
    if out.returncode != 0:
        raise SystemExit(f"accounts: {binary} registry failed: {out.stderr.strip()}")
    entries, unknown = {}, None
    for line in out.stdout.splitlines():
        v = json.loads(line)
        if "unknown_countries" in v:
            unknown = v["unknown_countries"]
        else:
            entries[v["country"]] = v
    if unknown is None:
        raise SystemExit("accounts: the registry output has no closing count")
    return entries, unknown


def check_registries(binary: str) -> tuple[dict[str, str], dict[str, dict]]:
    dat, source = stdnum_registry()
    core, unknown = core_registry(binary, dat)
    problems = []
    for cc, structure in sorted(dat.items()):
        kinds = expand(structure)
        want = {"length": 4 + len(kinds), "check": "2n", "bban": runs(kinds), "anomalies": []}
        got = core.get(cc)
        if got is None:
            problems.append(f"{cc}: in iban.dat ({structure}), core refuses it as an unknown country")
            continue
        diff = {k: (got.get(k), w) for k, w in want.items() if got.get(k) != w}
        if diff:
            problems.append(f"{cc}: core {{{', '.join(f'{k}: {g!r}' for k, (g, _) in diff.items())}}}"
                            f", iban.dat {{{', '.join(f'{k}: {w!r}' for k, (_, w) in diff.items())}}}")
    for cc in sorted(set(core) - set(dat)):
        problems.append(f"{cc}: core knows it ({core[cc]}), iban.dat does not")
    if unknown != 26 * 26 - len(dat):
        problems.append(f"core refuses {unknown} pairs of letters as unknown countries, "
                        f"iban.dat leaves {26 * 26 - len(dat)}")
    if problems:
        failures.append("IBAN registry against python-stdnum")
        say(f"IBAN registry: {len(problems)} differences from python-stdnum's iban.dat:")
        for p in problems:
            say(f"  {p}")
    else:
        say(f"IBAN registry: the {len(dat)} countries of python-stdnum {version('python-stdnum')}'s "
            f"iban.dat ({source}) match core (IBAN length, one character more and less refused, "
            f"check digits, BBAN structure position by position); the other {unknown} pairs of "
            f"letters are refused as unknown countries")

    # schwifty: the same 89 countries; its other countries are not in SWIFT's registry.
    specs = schwifty_specs()
    problems, expected_differences, same = [], [], 0
    for cc in sorted(dat):
        spec = specs.get(cc)
        if spec is None:
            problems.append(f"{cc}: not in schwifty's registry")
            continue
        theirs = (spec["iban_length"], runs(expand(spec["bban_spec"])))
        mine = (core[cc]["length"], core[cc]["bban"]) if cc in core else None
        if theirs == mine:
            same += 1
        elif mine and cc == "BR" and spec["bban_spec"] == "8!c5!n10!n1!c1!c":
            expected_differences.append(f"BR: schwifty {spec['bban_spec']}, core {mine[1]}")
        else:
            problems.append(f"{cc}: schwifty {theirs}, core {mine}")
    # Its other countries: aspirational (a format announced, not in SWIFT's registry) or a
    # territory that SWIFT's registry folds into another country (NC in FR, JE in GB, AX in FI).
    extra = sorted(set(specs) - set(dat))
    aspirational = [cc for cc in extra if specs[cc].get("aspirational")]
    territories = [cc for cc in extra if not specs[cc].get("aspirational")
                   and specs[cc]["iban_spec"][:2] in dat and specs[cc]["iban_spec"][:2] != cc]
    for cc in sorted(set(extra) - set(aspirational) - set(territories)):
        problems.append(f"{cc}: in schwifty's registry ({specs[cc]['iban_spec']}), neither "
                        f"aspirational nor written as another country's IBAN; core refuses it")
    if problems:
        failures.append("IBAN registry against schwifty")
        say(f"IBAN registry: {len(problems)} differences from schwifty's registry:")
        for p in problems:
            say(f"  {p}")
    else:
        say(f"IBAN registry: schwifty {version('schwifty')}: {same} of those countries match core; "
            f"{len(expected_differences)} differs as README.md says ({'; '.join(expected_differences)}); "
            f"its other {len(aspirational)} aspirational countries and {len(territories)} "
            f"territories ({', '.join(territories)}: IBANs of "
            f"{'/'.join(sorted({specs[cc]['iban_spec'][:2] for cc in territories}))} in SWIFT's "
            f"registry) are left out")
    return dat, specs


# --- generating values ------------------------------------------------------------------------

class Gen:
    """Deterministic values: every choice comes from one seeded Random."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def chars(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    # Invalid values from a valid one. Each returns None when the value has nothing to change.
    def changed_digit(self, v: str, start: int = 0) -> str | None:
        at = [i for i in range(start, len(v)) if v[i].isdigit()]
        if not at:
            return None
        i = self.rng.choice(at)
        return v[:i] + self.rng.choice(DIGITS.replace(v[i], "")) + v[i + 1:]

    def swapped_digits(self, v: str, start: int = 0) -> str | None:
        at = [i for i in range(start, len(v) - 1)
              if v[i].isdigit() and v[i + 1].isdigit() and v[i] != v[i + 1]]
        if not at:
            return None
        i = self.rng.choice(at)
        return v[:i] + v[i + 1] + v[i] + v[i + 2:]

    def other_kind(self, v: str, start: int = 0) -> str | None:
        """A letter where a digit was, or a digit where a letter was."""
        if len(v) <= start:
            return None
        i = self.rng.randrange(start, len(v))
        return v[:i] + self.rng.choice(LETTERS if v[i].isdigit() else DIGITS) + v[i + 1:]

    def length(self, v: str, alphabet: str) -> str:
        """One character dropped or one added."""
        if self.rng.random() < 0.5:
            i = self.rng.randrange(len(v))
            return v[:i] + v[i + 1:]
        i = self.rng.randrange(len(v) + 1)
        return v[:i] + self.rng.choice(alphabet) + v[i:]

    def country(self, v: str, at: int) -> str:
        i = at + self.rng.randrange(2)
        return v[:i] + self.rng.choice(LETTERS.replace(v[i], "")) + v[i + 1:]


def mutants(g: Gen, v: str, extra: list) -> list[tuple[str, str]]:
    """The generated value, one digit changed, two adjacent digits swapped, and one of `extra`."""
    out = [("generated", v)]
    for name, f in (("digit", g.changed_digit), ("swap", g.swapped_digits)):
        m = f(v)
        if m is not None:
            out.append((name, m))
    name, f = g.rng.choice(extra)
    m = f(v)
    if m is not None:
        out.append((name, m))
    return out


def grouped(v: str, size: int = 4) -> str:
    return " ".join(v[i:i + size] for i in range(0, len(v), size))


def written(g: Gen, kind: str, v: str) -> str:
    """How a form may send it (FORMAT.md: spaces and hyphens removed, letters in either case):
    a quarter of the values are written with spaces or hyphens, a quarter in lower case.
    clabe removes neither: CLABEs are written as they are (README.md)."""
    r = g.rng.random()
    if r < 0.25:
        sep = "-" if r < 0.125 else " "
        if kind == "iban":
            return grouped(v).replace(" ", sep)
        if kind == "bic":
            return sep.join(filter(None, (v[:4], v[4:6], v[6:8], v[8:])))
        if kind == "cuit":
            return f"{v[:2]}-{v[2:10]}-{v[10:]}"
        if kind == "cbu":
            return f"{v[:8]} {v[8:]}"
    elif r < 0.5 and kind in ("iban", "bic"):
        return v.lower()
    return v


def recheck(v: str | None) -> str | None:
    """The IBAN with its check digits computed again (python-stdnum's function)."""
    if v is None or len(v) < 5 or not v.isalnum():
        return v
    return v[:2] + stdnum.iban.calc_check_digits(v) + v[4:]


def iban_values(g: Gen, dat: dict[str, str], count: int) -> list[tuple[str, str]]:
    countries = sorted(dat)
    out: list[tuple[str, str]] = []
    n = 0
    while len(out) < count:
        cc = g.rng.choice(countries)
        if n % 2 == 0:
            # A BBAN of iban.dat's structure, check digits by python-stdnum.
            bban = "".join(g.rng.choice({"n": DIGITS, "a": LETTERS, "c": ALNUM}[k])
                           for k in expand(dat[cc]))
            v = cc + stdnum.iban.calc_check_digits(cc + "00" + bban) + bban
        else:
            # schwifty's generator: a bank of its registry where it has one.
            v = str(IBAN.random(cc, random=g.rng))
        n += 1
        # A changed structure, length or country is caught by the check digits alone: these
        # get theirs computed again, so that the registry's rules decide.
        extra = [("kind", lambda x: recheck(g.other_kind(x, 4))),
                 ("length", lambda x: recheck(g.length(x, ALNUM))),
                 ("country", lambda x: recheck(g.country(x, 0))),
                 ("check", lambda x: x[:2] + g.other_kind(x[2:4]) + x[4:])]
        out.extend(mutants(g, v, extra))
    # Check digits 00, 01 and 99: ISO 7064's other values of the same remainder (97, 98, 02).
    aliases = 0
    while aliases < max(50, count // 100):
        cc = g.rng.choice(countries)
        bban = "".join(g.rng.choice({"n": DIGITS, "a": LETTERS, "c": ALNUM}[k])
                       for k in expand(dat[cc]))
        check = int(stdnum.iban.calc_check_digits(cc + "00" + bban))
        alias = {97: 0, 98: 1, 2: 99}.get(check)
        if alias is not None:
            out.append(("alias", f"{cc}{alias:02d}{bban}"))
            aliases += 1
    return out


def bic_values(g: Gen, count: int) -> list[tuple[str, str]]:
    registered = sorted({b.bic for b in schwifty_registry.get_all_banks()
                         if re.fullmatch(r"[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?", b.bic or "")})
    countries = sorted(stdnum.bic._country_codes)  # noqa: SLF001 (its list of countries)
    out: list[tuple[str, str]] = []
    n = 0
    while len(out) < count:
        if n % 2 == 0:
            v = g.rng.choice(registered)  # a bank of schwifty's registry
        else:
            v = (g.chars(LETTERS, 4) + g.rng.choice(countries) + g.chars(ALNUM, 2)
                 + (g.chars(ALNUM, 3) if g.rng.random() < 0.5 else ""))
        n += 1
        extra = [("kind", g.other_kind),
                 ("length", lambda x: g.length(x, ALNUM)),
                 ("country", lambda x: g.country(x, 4))]
        out.extend(mutants(g, v, extra))
    return out


def digit_values(g: Gen, kind: str, count: int) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    n = 0
    banks = sorted(clabe.BANKS)
    while len(out) < count:
        if kind == "clabe":
            if n % 2 == 0:
                # clabe's generator: a bank code it knows, a branch (plaza), its control digit.
                v = clabe.generate_new_clabes(1, g.rng.choice(banks) + g.chars(DIGITS, 3))[0]
            else:
                body = g.chars(DIGITS, 17)
                v = body + clabe.compute_control_digit(body)
        elif kind == "cbu":
            a, b = g.chars(DIGITS, 7), g.chars(DIGITS, 13)
            v = (a + stdnum.ar.cbu.calc_check_digit(a) + b + stdnum.ar.cbu.calc_check_digit(b))
        else:  # cuit
            body = g.rng.choice(stdnum.ar.cuit._cuit_tpes) + g.chars(DIGITS, 8)  # noqa: SLF001
            v = body + stdnum.ar.cuit.calc_check_digit(body)
        n += 1
        extra = [("kind", g.other_kind), ("length", lambda x: g.length(x, DIGITS))]
        out.extend(mutants(g, v, extra))
    return out


# --- the oracles ------------------------------------------------------------------------------
# Each returns (verdict, None) or (None, reason) when the value is left out for that oracle.

DAT: dict[str, str] = {}
SPECS: dict[str, dict] = {}


def compact(v: str) -> str:
    return v.replace(" ", "").replace("-", "").upper()


def stdnum_iban(v: str):
    c = compact(v)
    if not c[2:4].isdigit() and len(c) >= 4 and c[:2] in DAT:
        return None, "stdnum does not check that characters 3-4 are digits"
    if c[2:4] in ("00", "01", "99") and c.isalnum() and mod_97_10.is_valid(c[4:] + c[:4]):
        return None, "stdnum accepts check digits 00, 01, 99 of a remainder of 1"
    return stdnum.iban.is_valid(v, check_country=False), None


def schwifty_iban(v: str):
    c = compact(v)
    if "-" in v:
        return None, "schwifty removes spaces, not hyphens"
    if c[:2] in SPECS and c[:2] not in DAT:
        return None, "schwifty: a country outside SWIFT's registry"
    if c[:2] == "BR" and SPECS["BR"]["regex"].match(c[4:]) and not re.fullmatch(
            "".join({"n": "[0-9]", "a": "[A-Z]", "c": "[A-Z0-9]"}[k] for k in expand(DAT["BR"])),
            c[4:]):
        return None, "schwifty: Brazil's relaxed structure"
    try:
        return IBAN(v, allow_invalid=True).is_valid, None
    except SchwiftyException:
        return False, None


def stdnum_bic(v: str):
    return stdnum.bic.is_valid(v), None


PYCOUNTRY = {c.alpha_2 for c in pycountry.countries}


def schwifty_bic(v: str):
    c = compact(v)
    if "-" in v:
        return None, "schwifty removes spaces, not hyphens"
    if c[4:6] == "XK" and "XK" not in PYCOUNTRY:
        return None, "schwifty: XK is not in pycountry"
    try:
        return BIC(v, allow_invalid=True).validate(enforce_swift_compliance=True), None
    except SchwiftyException:
        return False, None


def clabe_oracle(v: str):
    # validate_clabe also asks for a bank code it knows (FORMAT.md does not): used as it is
    # where the first three digits are one, else its rule without the bank code.
    if v[:3] in clabe.BANKS:
        return clabe.validate_clabe(v), None
    return (len(v) == 18 and v.isascii() and v.isdigit()
            and v[-1] == clabe.compute_control_digit(v)), None


ORACLES = {
    "iban": [("python-stdnum", stdnum_iban), ("schwifty", schwifty_iban)],
    "bic": [("python-stdnum", stdnum_bic), ("schwifty", schwifty_bic)],
    "clabe": [("clabe", clabe_oracle)],
    "cbu": [("python-stdnum", lambda v: (stdnum.ar.cbu.is_valid(v), None))],
    "cuit": [("python-stdnum", lambda v: (stdnum.ar.cuit.is_valid(v), None))],
}


def core_verdicts(binary: str, queries: list[tuple[str, str]]) -> list[dict]:
    text = "".join(json.dumps({"kind": k, "value": v}) + "\n" for k, v in queries)
    out = subprocess.run([binary, "check"], input=text, capture_output=True, text=True,
                         check=False)
    if out.returncode != 0:
        raise SystemExit(f"accounts: {binary} check failed: {out.stderr.strip()}")
    verdicts = [json.loads(line) for line in out.stdout.splitlines()]
    if len(verdicts) != len(queries):
        raise SystemExit(f"accounts: {len(queries)} values sent, {len(verdicts)} verdicts back")
    return verdicts


OPS = {
    "generated": "generated",
    "digit": "with one digit changed",
    "swap": "with two adjacent digits swapped",
    "kind": "with a letter for a digit or the reverse",
    "length": "with a character dropped or added",
    "country": "with a country letter changed",
    "check": "with a letter in the check digits",
    "alias": "with check digits 00, 01 or 99",
}


def show(v: dict) -> str:
    return "valid" if v["ok"] else f"{v['code']} ({v['problem']})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, help="the `accounts` binary of xborder-conformance")
    ap.add_argument("--count", type=int, default=10_000, help="values judged per kind, at least (a fifth more are made)")
    ap.add_argument("--seed", type=int, default=22)
    args = ap.parse_args()
    t0 = time.monotonic()
    say("oracles: " + ", ".join(f"{p} {version(p)}" for p in
                                ("python-stdnum", "schwifty", "clabe", "pycountry")))

    dat, specs = check_registries(args.bin)
    DAT.update(dat)
    SPECS.update(specs)

    g = Gen(args.seed)
    random.seed(args.seed)  # clabe.generate_new_clabes draws from the module's generator
    # A fifth more than --count: some values are left out for every oracle of their kind.
    made = args.count + args.count // 5
    values = {
        "iban": iban_values(g, dat, made),
        "bic": bic_values(g, made),
        "clabe": digit_values(g, "clabe", made),
        "cbu": digit_values(g, "cbu", made),
        "cuit": digit_values(g, "cuit", made),
    }
    queries = [(kind, written(g, kind, v)) for kind, vs in values.items() for _, v in vs]
    # The BIC's country letters: every pair, in a BIC that is otherwise valid.
    pairs = [a + b for a in LETTERS for b in LETTERS]
    queries += [("bic", f"ABCD{cc}2L") for cc in pairs]
    verdicts = core_verdicts(args.bin, queries)

    bic_core = {cc for cc, v in zip(pairs, verdicts[-len(pairs):]) if v["ok"]}
    bic_stdnum = set(stdnum.bic._country_codes)  # noqa: SLF001
    if bic_core != bic_stdnum:
        failures.append("BIC countries")
        say(f"BIC countries: core only {sorted(bic_core - bic_stdnum)}, "
            f"python-stdnum only {sorted(bic_stdnum - bic_core)}")
    else:
        say(f"BIC countries: the {len(bic_core)} pairs of letters core accepts are "
            f"python-stdnum's (ISO 3166-1 and XK); the other {676 - len(bic_core)} are refused")

    total = disagreements_all = 0
    i = 0
    for kind, vs in values.items():
        compared, excluded = Counter(), Counter()
        ops = Counter(op for op, _ in vs)
        judged_n = valid = invalid = 0
        disagreements = []
        for op, _ in vs:
            text, core = queries[i][1], verdicts[i]
            i += 1
            judged = {}
            for name, oracle in ORACLES[kind]:
                verdict, reason = oracle(text)
                if reason is not None:
                    excluded[(name, reason)] += 1
                    continue
                compared[name] += 1
                judged[name] = bool(verdict)
            if not judged:
                continue  # every oracle left it out (counted above), so no one judged it
            judged_n += 1
            valid += all(judged.values())
            invalid += not any(judged.values())
            if any(v != core["ok"] for v in judged.values()):
                disagreements.append((op, text, core, judged))
            if kind == "iban" and op == "alias" and IBAN(compact(text), allow_invalid=True).is_valid:
                # README.md says schwifty refuses these, as core does (contract v4).
                failures.append(f"schwifty accepts {text!r}, with check digits README.md says it refuses")
        total += judged_n
        disagreements_all += len(disagreements)
        say(f"{kind}: {judged_n} values ({valid} valid, {invalid} invalid), "
            f"{len(disagreements)} disagreements")
        say(f"  {kind}: " + ", ".join(f"{c} {OPS[op]}" for op, c in ops.items())
            + "; judged by " + ", ".join(f"{name} {c}" for name, c in compared.items()))
        for (name, reason), c in sorted(excluded.items()):
            say(f"  {kind}: left out for {name}: {c} ({reason})")
        for op, text, core, judged in disagreements[:SHOW]:
            say(f"  DISAGREEMENT {kind} {text!r} ({op}): core {show(core)}, "
                + ", ".join(f"{name} {'valid' if v else 'invalid'}" for name, v in judged.items()))
        if disagreements:
            failures.append(f"{kind}: {len(disagreements)} disagreements")
        if judged_n < args.count:
            failures.append(f"{kind}: {judged_n} values judged, fewer than {args.count}")

    took = time.monotonic() - t0
    if failures:
        say(f"FAILED ({'; '.join(failures)}), {total} values, {disagreements_all} disagreements, "
            f"{took:.1f} s")
        return 1
    say(f"ok: {total} values of 5 kinds judged by core and the oracles, 0 disagreements; "
        f"IBAN registry and BIC countries match ({took:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
