#!/usr/bin/env python3
"""Seeds fuzz/corpus/<target>/ from the conformance vectors, plus account details and documents.

Reads every *.json of tests/vectors/, of ../shared/conformance/ and its versioned folders (v2/,
...; beside the repository, when it exists) and of each folder of $XBORDER_VECTORS_DIR
(':'-separated), and writes each input in the framing its target reads (see fuzz/README.md),
named by its SHA-1 as libFuzzer names files (contract v4: `account.check` cases seed
`account_check`, a kind byte, a cut byte, then the value; `beneficiary.form` cases seed `rules` with a draft of
the form's country, payment type and owner type; `beneficiary.normalize` cases their draft). The
`account_check` target also gets every account value below under its kind. The `rules` and `banks` targets also get drafts
with valid and near-valid account details (IBANs of every country of core's registry, CLABEs,
CBUs, CUITs, BICs, IFSCs, sort codes, BSBs, branch codes) to the countries that check them, under
documents given parsed, as their text, or unreadable. Existing files are kept; run `fuzz/run.sh`
or `cargo fuzz cmin` afterwards to minimise.

    python3 fuzz/seed_corpus.py [--out fuzz/corpus] [--target rules --target banks ...]
"""
import argparse
import base64
import glob
import hashlib
import json
import os
import random
import re

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def vector_files():
    shared = os.path.join(os.path.dirname(REPO), "shared", "conformance")
    dirs = [os.path.join(REPO, "tests", "vectors"), shared]
    dirs += sorted(glob.glob(os.path.join(shared, "v[0-9]*")))
    dirs += [d for d in os.environ.get("XBORDER_VECTORS_DIR", "").split(":") if d]
    for d in dirs:
        yield from sorted(glob.glob(os.path.join(d, "*.json")))


def body_of(inp):
    if "bodyBase64" in inp:
        return base64.b64decode(inp["bodyBase64"])
    if "body" in inp and inp["body"] is not None:
        return inp["body"].encode()
    return b""


# The account kinds in the order of core's `AccountDetail::ALL`: the `account_check` target reads
# its first byte as an index into it.
KINDS = ["iban", "clabe", "cbu", "cuit", "bic", "ifsc", "sort_code", "bsb", "ca_branch", "aba"]
FIELD_KINDS = {"bankDocumentNumber": "cuit", "bic": "bic", "ifscCode": "ifsc", "sortCode": "sort_code",
               "bsbNumber": "bsb", "branchCode": "ca_branch", "routingNumber": "aba"}


def account_input(kind, value):
    """The `account_check` framing: the kind's index, where to cut (half way), the value."""
    return bytes([KINDS.index(kind), len(value) // 2 % 256]) + value.encode()


def j(v):
    return json.dumps(v, ensure_ascii=False).encode()


def seeds(case):
    """(target, bytes) pairs for one vector case."""
    op, inp = case["op"], case["input"]
    if op == "envelope.decode":
        yield "envelope", body_of(inp)
    elif op in ("signature.verify", "signature.sign"):
        secrets = inp.get("secrets") or ([inp["secret"]] if "secret" in inp else [])
        sig = inp.get("signature")
        line = b"\x00".join(s.encode() for s in secrets)
        yield "signature", line + b"\n" + (sig or "").encode() + b"\n" + body_of(inp)
        yield "envelope", body_of(inp)
    elif op == "event.classify":
        yield "event_names", inp["name"].encode()
    elif op == "event.matches":
        yield "event_names", "\n".join([inp["event"]] + inp["subscriptions"]).encode()
    elif op == "event.check_registration":
        names = inp["events"]
        existing = inp.get("existingWebhooks", 0)
        yield "registration", "\n".join([str(existing)] + names).encode()
        yield "event_names", "\n".join(names).encode()
    elif op == "beneficiary.validate":
        draft = inp["draft"]
        # No rules: the draft alone (`{}` is a rules document that cannot be read).
        rules = j(inp["rules"]) + b"\n" if inp.get("rules") is not None else b""
        yield "rules", rules + j(draft)
        if "banks" in inp:
            yield "banks", j(inp["banks"]) + b"\n" + j(draft)
    elif op == "account.check":
        kind = inp.get("kind")
        if kind in KINDS and isinstance(inp.get("value"), str):
            yield "account_check", account_input(kind, inp["value"])
    elif op == "beneficiary.form":
        draft = {k: inp[k] for k in ("country", "paymentType", "ownerType") if inp.get(k) is not None}
        rules = j(inp["rules"]) + b"\n" if inp.get("rules") is not None else b""
        yield "rules", rules + j(draft)
    elif op == "beneficiary.normalize":
        yield "rules", j(inp["draft"])
    elif op == "pagination.info":
        out = j(inp["response"])
        if "request" in inp:
            out += b"\n" + j(inp["request"])
        yield "page_info", out
    elif op == "pagination.walk":
        req = inp.get("request") or {}
        request = {"page": req.get("page", 0), "pageSize": req.get("pageSize", 10)}
        for page in inp["pages"]:
            yield "page_info", j(page)
            yield "page_info", j(page) + b"\n" + j(request)
    elif op == "pagination.query":
        yield "list_params", j(inp)
    elif op == "webhook.receive":
        for d in inp.get("deliveries", []):
            b = d.get("body")
            body = base64.b64decode(d["bodyBase64"]) if "bodyBase64" in d else (b or "").encode()
            yield "envelope", body
            yield "signature", inp["secret"].encode() + b"\n" + (d.get("signature") or "").encode() + b"\n" + body


# ---------------------------------------------------------------------------------------------
# Account details (FORMAT.md's "Account details"): valid and near-valid values of each kind.

def iban_registry():
    """(country, length, BBAN structure) from core's registry (core/src/beneficiary/iban_registry.rs)."""
    path = os.path.join(REPO, "core", "src", "beneficiary", "iban_registry.rs")
    with open(path, encoding="utf-8") as f:
        return [(c, int(n), st) for c, n, st in
                re.findall(r'\("([A-Z]{2})", (\d+), "([0-9nac]+)"\)', f.read())]


def mod97(text):
    rem = 0
    for ch in text:
        rem = (rem * 100 + ord(ch) - 55 if ch.isalpha() else rem * 10 + int(ch)) % 97
    return rem


def make_iban(country, structure, rng):
    bban = ""
    for count, kind in re.findall(r"(\d+)([nac])", structure):
        for _ in range(int(count)):
            pick = kind if kind != "c" else rng.choice("na")
            bban += rng.choice("0123456789" if pick == "n" else "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    return f"{country}{98 - mod97(bban + country + '00'):02d}{bban}"


def weighted(digits, weights):
    return (10 - sum(int(d) * w % 10 for d, w in zip(digits, weights)) % 10) % 10


def make_clabe(body17):
    return body17 + str(weighted(body17, [3, 7, 1] * 6))


def make_cbu(b7, b13):
    return (b7 + str(weighted(b7, [7, 1, 3, 9, 7, 1, 3])) + b13
            + str(weighted(b13, [3, 9, 7, 1, 3, 9, 7, 1, 3, 9, 7, 1, 3])))


def make_cuit(first10):
    s = sum(int(d) * w for d, w in zip(first10, [5, 4, 3, 2, 7, 6, 5, 4, 3, 2]))
    return first10 + str({0: 0, 1: 9}.get(s % 11, 11 - s % 11))


def near(value, rng):
    """Near-valid spellings: one digit changed, two neighbours swapped, one character dropped,
    one letter where a digit was; and the value spaced in lower case, and hyphenated."""
    out = []
    digits = [i for i, c in enumerate(value) if c.isdigit()]
    if digits:
        i = rng.choice(digits)
        out.append(value[:i] + str((int(value[i]) + rng.randrange(1, 10)) % 10) + value[i + 1:])
        out.append(value[:i] + "O" + value[i + 1:])
    pairs = [i for i in range(len(value) - 1) if value[i] != value[i + 1]]
    if pairs:
        i = rng.choice(pairs)
        out.append(value[:i] + value[i + 1] + value[i] + value[i + 2:])
    out.append(value[:-1])
    groups = [value[k:k + 4] for k in range(0, len(value), 4)]
    out += [" ".join(groups).lower(), "-".join(groups)]
    return out


def account_values(rng):
    """(country, paymentType, paymentInfo fields) of drafts that reach the account checks."""
    registry = iban_registry()
    ibans = {c: make_iban(c, st, rng) for c, _, st in registry}
    for c, iban in ibans.items():
        yield "DE" if c != "DE" else "GB", "bank_account", {"accountNumber": iban}
    for c in ("DE", "GB", "FR", "NO", "BR", "LC", "MT", "IT", "ES", "NL", "PL", "SA"):
        for v in near(ibans[c], rng):
            yield c, "bank_account", {"accountNumber": v}
    for v in ("XX89370400440532013000", "mi.alias.banco", "mialiasbanco", "DE", "D1",
              "de89 3704 0044 0532 0130 00", "DE89-3704-0044-0532-0130-00", "DE89\u00a03704"):
        yield "CO", "bank_account", {"accountNumber": v}
    # CLABE (MX, bank_account and spei).
    for body in ("00201007777777777", "01218000118359719", "13218000118359719"):
        clabe = make_clabe(body)
        for pt in ("bank_account", "spei"):
            yield "MX", pt, {"accountNumber": clabe}
        for v in near(clabe, rng) + [clabe[:17], clabe + "0", clabe[:6] + " " + clabe[6:]]:
            yield "MX", rng.choice(["bank_account", "spei"]), {"accountNumber": v}
    yield "CO", "bank_account", {"accountNumber": make_clabe("00201007777777777")}
    yield "MX", "bank_account", {"accountNumber": "4152313412345678"}
    # CBU (AR).
    for b7, b13 in (("2850590", "4009041813520"), ("0110599", "0000041234567"), ("0720000", "8800000012345")):
        cbu = make_cbu(b7, b13)
        yield "AR", "bank_account", {"accountNumber": cbu}
        for v in near(cbu, rng):
            yield "AR", "bank_account", {"accountNumber": v}
    yield "CO", "bank_account", {"accountNumber": make_cbu("2850590", "4009041813520")}
    # CUIT (AR, bankDocumentNumber).
    for t in ("20", "23", "24", "27", "30", "33", "34", "50", "51", "55"):
        cuit = make_cuit(t + "".join(rng.choice("0123456789") for _ in range(8)))
        yield "AR", "bank_account", {"bankDocumentNumber": f"{cuit[:2]}-{cuit[2:10]}-{cuit[10]}"}
    for v in near(make_cuit("2012345678"), rng) + ["21123456786", "2012345678", "201234567860"]:
        yield "AR", "bank_account", {"bankDocumentNumber": v}
    # BIC (any country).
    for v in ("DEUTDEFF", "DEUTDEFF500", "deutdeff", "ABCDXK22", "DEUTZZFF", "DEU1DEFF",
              "DEUTDEF", "DEUTDEFF5001", "DEUT DE FF", "BNPAFRPPXXX", "DEUTDE1F"):
        yield rng.choice(["DE", "FR", "CO", "GB"]), "bank_account", {"bic": v}
    # IFSC (IN).
    for v in ("HDFC0001234", "hdfc0001234", "HDFC1001234", "HDFC000123", "SBIN0ABC123", "SBI10ABC123"):
        yield "IN", "bank_account", {"ifscCode": v}
    # Sort code (GB), BSB (AU), branch code (CA).
    for c, field, good in (("GB", "sortCode", "12-34-56"), ("AU", "bsbNumber", "062-000"),
                           ("CA", "branchCode", "003-12345")):
        for v in [good, good.replace("-", "")] + near(good, rng):
            yield c, "bank_account", {field: v}
        yield "IE" if c == "GB" else "NZ", "bank_account", {field: "12"}
        yield c, "bank_account", {field: 123456}
        yield c, "bank_account", {field: "  "}
    # Several fields in one draft, and values that are not strings.
    yield "GB", "bank_account", {"accountNumber": ibans["GB"], "bic": "NWBKGB2L", "sortCode": "60-16-13"}
    yield "AR", "bank_account", {"accountNumber": make_cbu("2850590", "4009041813520"),
                                 "bankDocumentNumber": "20-12345678-6", "bic": "BACOARBA"}
    yield "IN", "bank_account", {"ifscCode": "HDFC0001234", "bic": "HDFCINBB", "accountNumber": 1234567890}
    yield "AU", "bank_account", {"bsbNumber": "062-000", "accountNumber": True}
    yield "CA", "bank_account", {"branchCode": "00312345", "bic": {"code": "ROYCCAT2"}}
    yield "DE", "sepa", {"accountNumber": ibans["DE"], "bic": "DEUTZZFF"}
    yield "MX", "spei", {"accountNumber": ibans["DE"]}


def account_seeds():
    """(target, bytes): account-detail drafts under documents given parsed, as text, or
    unreadable (`rules`), and under bank lists alike (`banks`)."""
    rng = random.Random(20261125)
    for n, (country, pt, fields) in enumerate(account_values(rng)):
        info = {"bankId": "b1", **fields}
        draft = {"ownerType": "individual", "country": country, "paymentType": pt, "paymentInfo": info}
        field = next(iter(fields))
        described = {"data": {"country": country, "rules": {"paymentTypes": [
            {"type": pt, "requiredFields": [{"field": field, "description": "The " + field}]}]}}}
        sub_fields = {"rules": {"paymentTypes": [
            {"type": pt, "requiredFields": [{"field": field, "fields": [{"field": "x"}]}]}]}}
        rules = [None, {"rules": {}}, json.dumps({"rules": {}}), described, json.dumps(described),
                 sub_fields, "{\"data\": {", []][n % 8]
        yield "rules", (j(rules) + b"\n" if rules is not None else b"") + j(draft)
        listed = {"data": [{"id": "b1", "name": "One"}], "requestId": 2}
        banks = [{"country": country, "response": listed},
                 {"country": country, "response": json.dumps(listed)},
                 {"country": "CO" if country != "CO" else "MX", "response": listed},
                 {"response": listed},
                 {"country": country, "response": "[]"},
                 {"country": country, "response": {"error": {"CODE": "INTERNAL"}}}][n % 6]
        yield "banks", j(banks) + b"\n" + j(draft)
        for f, v in fields.items():
            if not isinstance(v, str):
                continue
            kinds = [FIELD_KINDS[f]] if f in FIELD_KINDS else ["iban", "clabe", "cbu"]
            for kind in kinds:
                yield "account_check", account_input(kind, v)
    for v in ("021000021", "021-000-021", "000000000", "13 000 000 0", "12345678"):
        yield "account_check", account_input("aba", v)


def document_seeds():
    """Documents alone, parsed and as text, readable and not, for `rules` and `banks`."""
    draft = {"ownerType": "business", "country": "CO", "paymentType": "bank_account",
             "paymentInfo": {"bankId": "b1", "accountNumber": "123456"}}
    rules = {"data": {"country": "CO", "ownerType": "business", "rules": {
        "requiredFields": [{"field": "name", "description": "Name"}],
        "paymentTypes": [{"type": "bank_account", "requiredFields": [{"field": "accountNumber"}]}]}}}
    for doc in (rules, rules["data"], {"data": None, "rules": {}}, {"data": {"rules": {"requiredFields": 1}}},
                {"rules": {"paymentTypes": {}}}, {"error": {"CODE": "UNAUTHORIZED"}}, {}, [], 7, True):
        yield "rules", j(doc) + b"\n" + j(draft)
        yield "rules", j(json.dumps(doc)) + b"\n" + j(draft)
    yield "rules", j(json.dumps(json.dumps(rules))) + b"\n" + j(draft)
    yield "rules", b'"{\\"rules\\": {}} trailing"\n' + j(draft)
    listed = {"data": [{"id": "b1"}, {"id": 2}, {"name": "no id"}], "requestId": 2}
    for resp in (listed, {"data": {}}, {"data": None}, {"error": {"CODE": "INTERNAL"}}, [], "x"):
        yield "banks", j({"country": "CO", "response": resp}) + b"\n" + j(draft)
        yield "banks", j({"country": "CO", "response": json.dumps(resp)}) + b"\n" + j(draft)
    yield "banks", j(json.dumps(listed)) + b"\n" + j(draft)
    yield "banks", j({"country": "CO", "response": None}) + b"\n" + j(draft)


def page_seeds():
    """`meta` envelopes, responses without a request, servers whose walk must stall."""
    ids = [{"id": f"r{i}"} for i in range(3)]
    for response in ({"data": ids, "meta": {"total": 12, "page": 1, "pageSize": 3}},
                     {"data": ids, "meta": {"total": 12, "page": 0, "pageSize": 3, "hasNext": True}},
                     {"data": ids, "meta": {"total": 3}, "total": 9},
                     {"data": ids, "meta": [1]},
                     {"data": ids, "total": 100, "hasNext": True},
                     {"data": [{"id": "a"}, {}], "total": 100, "hasNext": True},
                     {"data": [{"id": 1}, {"id": 1.0}, {"id": "1"}], "total": 50},
                     {"data": [], "total": 5, "hasNext": True}):
        yield "page_info", j(response)
        yield "page_info", j(response) + b"\n" + j({"page": 2, "pageSize": 3})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "corpus"))
    ap.add_argument("--target", action="append", help="seed only this target (repeatable)")
    args = ap.parse_args()
    counts = {}

    def write(target, data):
        if args.target and target not in args.target:
            return
        d = os.path.join(args.out, target)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, hashlib.sha1(data).hexdigest())
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(data)
            counts[target] = counts.get(target, 0) + 1

    for path in vector_files():
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for case in doc.get("cases", []):
            for target, data in seeds(case):
                write(target, data)
    for target, data in [*account_seeds(), *document_seeds(), *page_seeds()]:
        write(target, data)
    # receiver_model reads `arbitrary` bytes, not a vector: a few fixed pseudo-random scenarios.
    rng = random.Random(20260101)
    for n in (16, 64, 256, 1024):
        for _ in range(4):
            write("receiver_model", bytes(rng.randrange(256) for _ in range(n)))
    for target in sorted(counts):
        print(f"{target}: {counts[target]} new")


if __name__ == "__main__":
    main()
