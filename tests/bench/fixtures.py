#!/usr/bin/env python3
"""Writes the benchmark inputs to tests/bench/fixtures/, byte for byte the same on every run.

Every runtime (criterion, Node, the JVM) reads these files, so all of them measure the same
bytes. Nothing here is random at run time: values come from a fixed-seed generator and the JSON
is written compactly with sorted-free, insertion-ordered keys.

  envelope-1k7.json   an order:funds_received delivery, ~1.7 KB, ~40 fields under entity.data
  envelope-20k.json   the same event with a 20 KB entity.data (the 40 fields and a ledger)
  *.sig               the X-Webhook-Signature of each body (lowercase hex HMAC-SHA256)
  secret.txt          the webhook secret the signatures use
  rules.json          a GET /v1/validation-rules/beneficiaries response with 30 field rules
  draft.json          a CO individual bank_account draft (three issues: a blank, two missing fields)
                      carrying every account identifier core checks, all valid (issue 22)
  banks.json          a GET /v1/beneficiaries/banks?countryCode=CO response (24 banks)
  page.json           a list response: 25 beneficiary records, total, page, pageSize, hasNext
  manifest.json       sizes and SHA-256 of everything above

Usage: python3 tests/bench/fixtures.py [--check]   (--check: fail if a file would change)
"""
import hashlib
import hmac
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
SECRET = "whsec_bench_5c1f0e9a7d3b42"


def dumps(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def order_data(rng, n_fields=40):
    """~40 fields of an order, as the service sends them (strings, numbers, nested objects)."""
    d = {
        "id": "ord_7Hc2kQ9mZt4LwX1p",
        "status": "funds_received",
        "previousStatus": "awaiting_funds",
        "amount": "12500.00",
        "currency": "USD",
        "destinationAmount": "49187500.00",
        "destinationCurrency": "COP",
        "exchangeRate": "3935.0000",
        "fee": "37.50",
        "feeCurrency": "USD",
        "purpose": "supplier_payment",
        "reference": "INV-2024-00871",
        "senderId": "snd_Qm3v8Lr2Yt6Nx0Ab",
        "beneficiaryId": "ben_Fz5k1Wc9Pq2Ds7Ge",
        "paymentType": "bank_account",
        "country": "CO",
        "createdAt": "2024-11-04T15:22:10.000Z",
        "updatedAt": "2024-11-04T16:05:41.512Z",
        "expiresAt": "2024-11-05T15:22:10.000Z",
        "fundsReceivedAt": "2024-11-04T16:05:41.000Z",
        "depositInstructions": {
            "bankName": "Lead Bank", "accountNumber": "200004815162", "routingNumber": "101019644",
            "beneficiaryName": "Xborder Payments LLC", "memo": "XB7HC2KQ9M",
        },
        "beneficiary": {
            "firstName": "Ana María", "lastName": "Ruiz", "bankId": "bank_co_007",
            "accountType": "savings", "accountNumberLast4": "5678",
        },
        "compliance": {"screening": "clear", "riskScore": 12, "reviewedBy": None},
        "metadata": {"erpId": "SAP-0048213", "costCenter": "LATAM-OPS", "batch": 17},
        "isTest": False,
        "attempt": 1,
    }
    i = 0
    while len(d) < n_fields:
        i += 1
        d[f"customField{i:02d}"] = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(18))
    return d


def envelope(data):
    return {
        "id": "evt_01JCG7Z4R8M2K9QX5V3T6N1B0A",
        "event": "order:funds_received",
        "entity": {"id": data["id"], "type": "order", "data": data},
    }


def sized(rng, target, base):
    """Pads entity.data with a ledger of realistic entries until the body is ~target bytes."""
    data = dict(base)
    ledger = []
    data["ledger"] = ledger
    n = 0
    while len(dumps(envelope(data))) < target:
        n += 1
        ledger.append({
            "seq": n,
            "at": f"2024-11-04T16:{n % 60:02d}:{(7 * n) % 60:02d}.{(37 * n) % 1000:03d}Z",
            "type": rng.choice(["credit", "debit", "fx", "fee", "hold", "release"]),
            "amount": f"{rng.randint(1, 999999) / 100:.2f}",
            "currency": rng.choice(["USD", "COP", "MXN", "BRL"]),
            "note": "".join(rng.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(24)),
        })
    return data


def rules_doc():
    """A validation-rules response with 30 field rules (top level, nested, per payment type)."""
    def f(name, desc, **kids):
        r = {"field": name, "description": desc}
        r.update(kids)
        return r
    required = [
        f("firstName", "First name"), f("lastName", "Last name"), f("email", "Contact email"),
        f("phone", "Phone number"), f("dateOfBirth", "Date of birth"), f("nationality", "Nationality"),
        f("gender", "Gender"),
        f("address", "Residential address", nestedFields=[
            f("street", "Street and number"), f("city", "City"), f("state", "State"),
            f("postalCode", "Postal code"), f("country", "Country")]),
        f("identity", "Identity document", fields=[
            f("documentNumber", "Document number"), f("documentType", "Document type"),
            f("issuedAt", "Issue date"), f("issuingCountry", "Issuing country")]),
        f("employment", "Employment", nestedFields=[
            f("occupation", "Occupation"), f("employer", "Employer")]),
        f("taxId", "Tax id"),
    ]
    bank = [f("paymentInfo", "Bank account", nestedFields=[
        f("bankId", "Bank"), f("accountNumber", "Account number"), f("accountType", "Account type"),
        f("accountHolder", "Account holder"), f("currency", "Account currency")])]
    wallet = [f("walletAddress", "Wallet address"), f("network", "Network")]
    return {"data": {
        "id": "5c68e0a4-3f1b-4d2e-9a7c-1b2d3e4f5a6b", "version": 3, "owner": "beneficiary",
        "ownerType": "individual", "country": "CO",
        "createdAt": "2024-11-04T15:22:10.000Z", "updatedAt": "2024-11-04T15:22:10.000Z",
        "rules": {"requiredFields": required, "paymentTypes": [
            {"type": "bank_account", "description": "Bank transfer", "requiredFields": bank},
            {"type": "wallet", "description": "Stablecoin wallet", "requiredFields": wallet}]},
    }}


def count_rules(items):
    n = 0
    for it in items:
        n += 1 + count_rules(it.get("nestedFields", [])) + count_rules(it.get("fields", []))
    return n


def draft_doc():
    return {
        "ownerType": "individual", "country": "CO", "paymentType": "bank_account",
        "firstName": "Ana María", "lastName": "Ruiz", "email": "ana.ruiz@example.com",
        "phone": "+57 601 555 0142", "dateOfBirth": "1988-03-14", "nationality": "CO", "gender": "F",
        "address": {"street": "Calle 93 # 11-26", "city": "Bogotá", "state": "Cundinamarca",
                    "postalCode": "110221", "country": "CO"},
        "identity": {"documentNumber": "1020304050", "documentType": "CC", "issuedAt": "2006-04-02",
                     "issuingCountry": "CO"},
        "employment": {"occupation": "Engineer", "employer": "   "},
        # Every account identifier core checks, each valid: for a CO draft the IBAN (an IBAN-shaped
        # accountNumber is checked in any country) and the BIC are checked; the country-bound ones
        # (CUIT, IFSC, sort code, BSB, branch code) are carried and looked at, not checked.
        "paymentInfo": {"bankId": "bank_co_007", "accountNumber": "DE89 3704 0044 0532 0130 00",
                        "accountType": "savings", "currency": "COP", "bic": "BCOLCOBMXXX",
                        "bankDocumentNumber": "20-12345678-6", "ifscCode": "HDFC0001234",
                        "sortCode": "12-34-56", "bsbNumber": "062-000", "branchCode": "00312345"},
    }


def banks_doc():
    return {"data": [{"id": f"bank_co_{i:03d}", "name": f"Banco {i:03d}", "code": f"{1000 + 7 * i}"}
                     for i in range(1, 25)]}


def page_doc(rng):
    records = []
    for i in range(25):
        records.append({
            "id": f"ben_{i:04d}{''.join(rng.choice('ABCDEFGHJKLMNPQRSTUVWXYZ') for _ in range(8))}",
            "ownerType": "individual", "country": rng.choice(["CO", "MX", "BR", "US"]),
            "paymentType": "bank_account", "firstName": f"Name{i}", "lastName": f"Surname{i}",
            "email": f"user{i}@example.com", "status": rng.choice(["active", "pending"]),
            "createdAt": f"2024-10-{1 + i % 28:02d}T10:00:00.000Z",
        })
    return {"data": records, "total": 1342, "page": 2, "pageSize": 25, "hasNext": True}


def build():
    rng = random.Random(20241104)
    base = order_data(rng)
    small = dumps(envelope(base))
    large = dumps(envelope(sized(rng, 20 * 1024, base)))
    rules = rules_doc()
    assert count_rules(rules["data"]["rules"]["requiredFields"]) + sum(
        count_rules(p["requiredFields"]) for p in rules["data"]["rules"]["paymentTypes"]) == 30
    files = {
        "envelope-1k7.json": small,
        "envelope-20k.json": large,
        "envelope-1k7.sig": hmac.new(SECRET.encode(), small, hashlib.sha256).hexdigest().encode(),
        "envelope-20k.sig": hmac.new(SECRET.encode(), large, hashlib.sha256).hexdigest().encode(),
        "secret.txt": SECRET.encode(),
        "rules.json": dumps(rules),
        "draft.json": dumps(draft_doc()),
        "banks.json": dumps(banks_doc()),
        "page.json": dumps(page_doc(rng)),
    }
    manifest = {name: {"bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()} for name, b in files.items()}
    manifest["envelope-1k7.json"]["dataFields"] = len(base)
    manifest["rules.json"]["fieldRules"] = 30
    files["manifest.json"] = json.dumps(manifest, indent=2, sort_keys=True).encode() + b"\n"
    return files


def main():
    check = "--check" in sys.argv
    files = build()
    os.makedirs(OUT, exist_ok=True)
    changed = []
    for name, data in files.items():
        path = os.path.join(OUT, name)
        old = open(path, "rb").read() if os.path.exists(path) else None
        if old != data:
            changed.append(name)
            if not check:
                with open(path, "wb") as fh:
                    fh.write(data)
    if check and changed:
        sys.exit(f"fixtures: out of date: {', '.join(changed)}")
    print(f"fixtures: {len(files)} files in {os.path.relpath(OUT)}"
          f" (1k7 {len(files['envelope-1k7.json'])} B, 20k {len(files['envelope-20k.json'])} B)"
          + (f"; rewrote {', '.join(changed)}" if changed and not check else ""))


if __name__ == "__main__":
    main()
