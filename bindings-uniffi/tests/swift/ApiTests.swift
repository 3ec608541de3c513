// The Swift binding's own API tests (run by bindings-uniffi/test.sh): one secret is the common
// case and is never split; a rotation takes a named list; pagination errors carry their field;
// an extended catalog reaches its receivers; the walker passes records once; claims agree in the
// built-in store, a Swift store and a ClaimTask driven with async/await over an actor store;
// beneficiary issues carry what to fix and the rules document's label, documents are taken as
// the response text and an unreadable one is reported (an issue, or XborderError.Document from
// requiredFields); (contract v4, issue 31) checkAccount's states while typing with the reason and
// figures of an invalid value, the form model (beneficiaryForm, BeneficiaryValidator.form) and
// its refusals (XborderError.Form: errorCode(), errorField()), normalizeBeneficiary.
// Issue 12: in Python a string secret was read as one secret per character. Every ```swift block
// of swift.md runs too: readme.sh writes them as functions (Readme.swift, compiled beside this
// file), each must not throw and must print the lines it shows under `// prints:`. test.sh compiles
// this file as main.swift; SwiftPM's XborderTests takes it up to the ENTRY line. HMAC is computed
// here by a small SHA-256 of our own (Foundation on Linux has no CommonCrypto).
import Foundation

let SECRET = "whsec_test"
let BODY = Data(#"{"id":"evt_1","event":"order:created","entity":{"id":"ord_1","type":"order","data":{}}}"#.utf8)
var passed = 0
var failed = 0

func check(_ name: String, _ ok: Bool, _ why: String = "") {
    if ok { passed += 1 } else { failed += 1; print("FAIL \(name): \(why)") }
}

// SHA-256 (FIPS 180-4) and HMAC (RFC 2104), for the expected values only.
func sha256(_ message: [UInt8]) -> [UInt8] {
    let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]
    var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
    var m = message
    let bitLength = UInt64(message.count) * 8
    m.append(0x80)
    while m.count % 64 != 56 { m.append(0) }
    for i in (0..<8).reversed() { m.append(UInt8((bitLength >> (UInt64(i) * 8)) & 0xff)) }
    func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
    for chunk in stride(from: 0, to: m.count, by: 64) {
        var w = [UInt32](repeating: 0, count: 64)
        for i in 0..<16 {
            w[i] = (0..<4).reduce(UInt32(0)) { ($0 << 8) | UInt32(m[chunk + i * 4 + $1]) }
        }
        for i in 16..<64 {
            let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
            let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
        for i in 0..<64 {
            let t1 = hh &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
            let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
            (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
        }
        for (i, v) in [a, b, c, d, e, f, g, hh].enumerated() { h[i] = h[i] &+ v }
    }
    return h.flatMap { v in (0..<4).reversed().map { UInt8((v >> (UInt32($0) * 8)) & 0xff) } }
}

func hmacHex(_ key: [UInt8], _ body: Data) -> String {
    var k = key.count > 64 ? sha256(key) : key
    k += [UInt8](repeating: 0, count: 64 - k.count)
    let inner = sha256(k.map { $0 ^ 0x36 } + [UInt8](body))
    return sha256(k.map { $0 ^ 0x5c } + inner).map { String(format: "%02x", $0) }.joined()
}

func codeOf(_ block: () throws -> Void) -> String? {
    do { try block(); return nil } catch let e as XborderError { return e.errorCode() } catch { return "\(error)" }
}

func signed(_ event: String, id: String = "evt_9") -> (Data, String) {
    let entity = event.split(separator: ":").first.map(String.init) ?? ""
    let body = Data(#"{"id":"\#(id)","event":"\#(event)","entity":{"id":"ord_1","type":"\#(entity)"}}"#.utf8)
    return (body, hmacHex(Array(SECRET.utf8), body))
}

func catalogTests() throws {
    let c = Catalog()
    check("catalog: unknown before", c.classify(name: "order:rejected").kind == .unknown)
    try c.addLive(name: "order:rejected")
    let got = c.classify(name: "order:rejected")
    check("catalog: live after add", got == EventClassification(kind: .live, entity: "order", action: "rejected"), "\(got)")
    check("catalog: isLive", c.isLive(name: "order:rejected"))
    let reg = c.checkRegistration(events: ["order:rejected", "order:created"])
    check("catalog: registration accepts it", reg.ok && reg.events == ["order:rejected", "order:created"], "\(reg)")
    check("catalog: webhook body", try c.createWebhookBody(events: ["order:rejected"], url: "https://a.test/h").contains(#""order:rejected""#))
    check("catalog: free functions keep the built-in catalog",
          classifyEvent(name: "order:rejected").kind == .unknown && !checkRegistration(events: ["order:rejected"]).ok)
    let (body, sig) = signed("order:rejected")
    let d = try Receiver(secret: SECRET, catalog: c).receive(body: body, signature: sig)
    check("catalog: receiver with it processes", d.action == .process && d.envelope?.event == "order:rejected", "\(d)")
    check("catalog: rotation receiver with it processes",
          try Receiver.withSecrets(secrets: ["whsec_old", SECRET], catalog: c).receive(body: body, signature: sig).action == .process)
    check("catalog: default receiver ignores", try Receiver(secret: SECRET).receive(body: body, signature: sig).action == .ignore)
    let copied = try Receiver(secret: SECRET, catalog: c)
    try c.addLive(name: "fiat_deposit:rejected")
    let (later, laterSig) = signed("fiat_deposit:rejected")
    check("catalog: the receiver keeps its copy", copied.receive(body: later, signature: laterSig).action == .ignore)
    try c.addWildcard(name: "fiat_deposit:*")
    check("catalog: wildcard", c.classify(name: "fiat_deposit:*").kind == .wildcard && c.checkRegistration(events: ["fiat_deposit:*"]).ok)
    check("catalog: matches", c.matches(subscriptions: ["fiat_deposit:*"], event: "fiat_deposit:rejected"))
    for (name, wildcard) in [("Bad Name", false), ("order:*", false), ("", false), ("order:rejected", true)] {
        do {
            if wildcard { try c.addWildcard(name: name) } else { try c.addLive(name: name) }
            check("catalog: '\(name)' refused", false)
        } catch let XborderError.Catalog(code, _) {
            check("catalog: '\(name)' is INVALID_EVENT_NAME", code == "INVALID_EVENT_NAME")
        }
    }
}

func walkerTests() throws {
    // A server whose list gains a record ("d", newest first) while the walker is on page 1.
    var records = ["c", "b", "a", "z"]
    var queries: [String] = []
    func serve(_ query: String) -> String {
        var q: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            q[kv[0]] = kv.count > 1 ? kv[1] : ""
        }
        let page = Int(q["page"]!)!, size = Int(q["pageSize"]!)!
        if queries.count == 2 { records.insert("d", at: 0) }
        let data = records.dropFirst(page * size).prefix(size).map { #"{"id":"\#($0)"}"# }.joined(separator: ",")
        return #"{"data":[\#(data)],"total":\#(records.count),"page":\#(page),"pageSize":\#(size)}"#
    }
    let w = try PageWalker(paramsJson: #"{"pageSize":2,"filters":{"status":"success"}}"#)
    var seen: [String] = []
    var drifts: [Drift] = []
    while let query = w.nextQuery() {
        queries.append(query)
        let step = try w.feed(responseJson: serve(query))
        seen += step.recordsJson
        drifts += step.drifts
    }
    check("walker: done", w.isDone() && w.nextQuery() == nil)
    check("walker: three pages", queries.map { String($0.split(separator: "&")[0]) } == ["page=0", "page=1", "page=2"], "\(queries)")
    check("walker: filters kept", queries.allSatisfy { $0.hasSuffix("&status=success") })
    check("walker: each record once", seen.sorted() == ["a", "b", "c", "z"].map { #"{"id":"\#($0)"}"# }, "\(seen)")
    check("walker: repeated record", drifts.contains { $0.code == "REPEATED_RECORDS" && $0.count == 1 }, "\(drifts)")
    check("walker: total changed", drifts.contains { $0.code == "TOTAL_CHANGED" && $0.previousTotal == 4 && $0.total == 5 }, "\(drifts)")
    do {
        _ = try PageWalker(paramsJson: #"{"status":"x"}"#)
        check("walker: unknown parameter throws", false)
    } catch let e as XborderError {
        check("walker: unknown parameter", e.errorCode() == "UNKNOWN_PARAMETER" && e.errorField() == "status", "\(e)")
    }
}

// The two documents as the server sends them (GET /v1/validation-rules/beneficiaries and
// GET /v1/beneficiaries/banks?countryCode=CO), as response text.
let RULES_CO = #"""
{"data": {"country": "CO", "ownerType": "individual", "rules": {
    "requiredFields": [{"field": "firstName", "description": "First name"}, {"field": "lastName"}],
    "paymentTypes": [{"type": "bank_account", "requiredFields": [{"field": "accountNumber", "description": "Account number"}]}]}},
    "requestId": "req_1"}
"""#
let BANKS_CO = #"{"data": [{"id": "bank_co_001", "name": "Banco Uno"}], "requestId": "req_2"}"#

func draft(_ country: String, _ paymentInfo: String, names: String = "") -> String {
    #"{"ownerType":"individual","country":"\#(country)","paymentType":"bank_account"\#(names),"paymentInfo":\#(paymentInfo)}"#
}

func shown(_ v: BeneficiaryValidation) -> [String] { v.issues.map { "\($0.path) \($0.code)" } }

func beneficiaryTests() throws {
    // Issues say what to fix, and carry the label the rules document gives the field.
    let missing = try validateBeneficiary(draftJson: draft("CO", #"{"bankId":"bank_co_001"}"#), rulesJson: RULES_CO,
                                          banksCountry: "CO", banksJson: BANKS_CO)
    check("beneficiary: every issue", Set(shown(missing)) ==
          ["firstName REQUIRED", "lastName REQUIRED", "paymentInfo.accountNumber REQUIRED"], "\(missing)")
    let byPath = Dictionary(missing.issues.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
    check("beneficiary: a described field's label", byPath["firstName"]?.label == "First name"
          && byPath["paymentInfo.accountNumber"]?.label == "Account number", "\(missing)")
    check("beneficiary: a field without a description has no label", byPath["lastName"] != nil && byPath["lastName"]?.label == nil, "\(missing)")
    check("beneficiary: every issue has a message",
          missing.issues.allSatisfy { !$0.message.isEmpty && $0.message != "\($0.code)" }, "\(missing)")
    let fixed = try validateBeneficiary(draftJson: draft("CO", "{}"))
    check("beneficiary: a fixed rule's issue has no label",
          fixed.issues.contains { $0.path == "paymentInfo.bankId" && $0.code == .required && $0.label == nil }, "\(fixed)")

    // Account details, checked as banks check them: the good value passes, the bad one is its code.
    let details: [(String, String, String, String, IssueCode)] = [
        ("DE", "accountNumber", "DE89 3704 0044 0532 0130 00", "DE89370400440532013001", .invalidIban),
        ("CO", "bic", "DEUTDEFF500", "DEUTZZFF", .invalidBic),
        ("MX", "accountNumber", "002010077777777771", "002010077777777772", .invalidClabe),
        ("AR", "accountNumber", "2850590940090418135201", "2850591940090418135201", .invalidCbu),
        ("AR", "bankDocumentNumber", "20-12345678-6", "21123456786", .invalidCuit),
        ("IN", "ifscCode", "HDFC0001234", "HDFC1001234", .invalidIfsc),
        ("GB", "sortCode", "12-34-56", "12345", .invalidSortCode),
        ("AU", "bsbNumber", "062-000", "06200A", .invalidBsb),
        ("CA", "branchCode", "00312345", "000312345", .invalidBranchCode),
    ]
    let formatCodes = ["INVALID_IBAN", "INVALID_BIC", "INVALID_CLABE", "INVALID_CBU", "INVALID_CUIT", "INVALID_IFSC",
                       "INVALID_SORT_CODE", "INVALID_BSB", "INVALID_BRANCH_CODE"]
    check("beneficiary: the account codes print as FORMAT.md's", details.map { "\($0.4)" } == formatCodes, "\(details.map { "\($0.4)" })")
    for (country, field, good, bad, code) in details {
        let ok = try validateBeneficiary(draftJson: draft(country, #"{"bankId":"bank_001","\#(field)":"\#(good)"}"#))
        check("beneficiary: \(code) passes \(good)", ok.valid && ok.issues.isEmpty, "\(ok)")
        let v = try validateBeneficiary(draftJson: draft(country, #"{"bankId":"bank_001","\#(field)":"\#(bad)"}"#))
        let issue = v.issues.count == 1 ? v.issues[0] : nil
        check("beneficiary: \(code) for \(bad)", !v.valid && issue?.path == "paymentInfo.\(field)"
              && issue?.code == code && issue?.message.isEmpty == false, "\(v)")
    }
    let iban = try validateBeneficiary(draftJson: draft("DE", #"{"bankId":"bank_001","accountNumber":"DE89370400440532013001"}"#)).issues
    check("beneficiary: an IBAN's message names the check digits",
          iban.count == 1 && iban[0].code == .invalidIban && iban[0].message.contains("check digits"), "\(iban)")
    let notString = try validateBeneficiary(draftJson: draft("DE", #"{"bankId":"bank_001","accountNumber":89370400}"#))
    check("beneficiary: a number where a string goes", shown(notString) == ["paymentInfo.accountNumber INVALID_VALUE"], "\(notString)")
    check("beneficiary: the unreadable codes print as FORMAT.md's",
          "\(IssueCode.rulesUnreadable) \(IssueCode.banksUnreadable)" == "RULES_UNREADABLE BANKS_UNREADABLE")

    // Documents are the response text; one that cannot be read is an issue at "", never thrown,
    // never read as "no rules", and none of its rules applies.
    let good = draft("CO", #"{"bankId":"bank_co_001","accountNumber":"123456"}"#, names: #","firstName":"Ana","lastName":"Ruiz""#)
    check("beneficiary: both documents as text",
          try validateBeneficiary(draftJson: good, rulesJson: RULES_CO, banksCountry: "CO", banksJson: BANKS_CO).valid)
    // The response text encoded once more as a JSON string: a text whose JSON is a string.
    let encodedTwice = String(decoding: try JSONSerialization.data(withJSONObject: RULES_CO, options: [.fragmentsAllowed]), as: UTF8.self)
    // Each with the reason core gives (its message says why, then the shape to pass).
    for (rules, why) in [(#"{"data": {"#, "not JSON"), ("{}", "shape"), (#"{"error":{"CODE":"INTERNAL"}}"#, "error response"),
                         ("null", "not a JSON object"), (encodedTwice, "encoded twice"), ("[]", "not a JSON object")] {
        let v = try validateBeneficiary(draftJson: draft("CO", #"{"bankId":"bank_co_001"}"#), rulesJson: rules,
                                        banksCountry: "CO", banksJson: BANKS_CO)
        check("beneficiary: rules \(rules.prefix(24)) are RULES_UNREADABLE (\(why)) and not applied",
              shown(v) == [" RULES_UNREADABLE"] && v.issues[0].message.hasPrefix("the rules document")
              && v.issues[0].message.contains(why), "\(v)")
    }
    for (what, banks) in [("the bare array", #"[{"id":"bank_co_001"}]"#), ("not JSON", "<html>"), ("data not an array", #"{"data":{}}"#)] {
        let v = try validateBeneficiary(draftJson: good, rulesJson: nil, banksCountry: "CO", banksJson: banks)
        check("beneficiary: banks \(what) is BANKS_UNREADABLE",
              shown(v) == [" BANKS_UNREADABLE"] && v.issues[0].message.contains("bank list"), "\(v)")
    }
    check("beneficiary: an unreadable bank list for a US draft too",
          shown(try validateBeneficiary(draftJson: draft("US", #"{"routingNumber":"021000021"}"#), banksCountry: "US", banksJson: "{}")) == [" BANKS_UNREADABLE"])
    check("beneficiary: nil is not given", try validateBeneficiary(draftJson: good, rulesJson: nil, banksCountry: nil, banksJson: nil).valid)
    check("beneficiary: a draft that is not JSON throws MALFORMED_JSON",
          codeOf { _ = try validateBeneficiary(draftJson: "{", rulesJson: RULES_CO) } == "MALFORMED_JSON")

    // BeneficiaryValidator: the documents read once, the same answers as validateBeneficiary.
    let drafts = [good, draft("CO", #"{"bankId":"bank_co_404"}"#), draft("CO", "{}"), "[]", #"{"country":"co"}"#]
    let validator = BeneficiaryValidator(rulesJson: RULES_CO, banksCountry: "CO", banksJson: BANKS_CO)
    for d in drafts {
        let got = try validator.validate(draftJson: d)
        check("validator: as validateBeneficiary for \(d)",
              got == (try validateBeneficiary(draftJson: d, rulesJson: RULES_CO, banksCountry: "CO", banksJson: BANKS_CO)), "\(got)")
    }
    check("validator: unknown bank", shown(try validator.validate(draftJson: drafts[1])).contains("paymentInfo.bankId UNKNOWN_BANK"))
    check("validator: a draft that is not JSON", codeOf { _ = try validator.validate(draftJson: "{") } == "MALFORMED_JSON")
    // Shared between threads: each answer is the one a lone call gives.
    let want = try drafts.map { try validator.validate(draftJson: $0) }
    let lock = NSLock()
    var same = 0
    DispatchQueue.concurrentPerform(iterations: 40) { n in
        let v = try? validator.validate(draftJson: drafts[n % drafts.count])
        lock.lock(); if v == want[n % drafts.count] { same += 1 }; lock.unlock()
    }
    check("validator: shared between threads", same == 40, "\(same) of 40")
    let bare = BeneficiaryValidator(banksCountry: "CO", banksJson: "[]")
    check("validator: an unreadable bank list on every validation",
          try (1...2).allSatisfy { _ in shown(try bare.validate(draftJson: good)) == [" BANKS_UNREADABLE"] })
    check("validator: no documents", try BeneficiaryValidator().validate(draftJson: good).valid)

    // requiredFields: the rules document's fields, or Document(RULES_UNREADABLE), never an empty list.
    let fields = try requiredFields(rulesJson: RULES_CO, paymentType: "bank_account", country: "CO")
    check("requiredFields: the rules' fields with their description",
          fields.contains { $0.path == "firstName" && $0.description == "First name" && $0.source == .rules }
          && fields.contains { $0.path == "paymentInfo.accountNumber" && $0.source == .rules }, "\(fields)")
    for rules in [#"{"data": {"#, "[]", encodedTwice] {
        do {
            _ = try requiredFields(rulesJson: rules, paymentType: "bank_account", country: "CO")
            check("requiredFields: unreadable rules throw (\(rules.prefix(24)))", false)
        } catch let e as XborderError {
            guard case let .Document(code, detail) = e else {
                check("requiredFields: a Document error (\(rules.prefix(24)))", false, "\(e)")
                continue
            }
            check("requiredFields: RULES_UNREADABLE (\(rules.prefix(24)))", code == "RULES_UNREADABLE"
                  && e.errorCode() == "RULES_UNREADABLE" && e.errorField() == nil && detail.contains("rules document"), "\(e)")
        }
    }
}

// Contract v4 (issue 31): an account detail as the user types it, the form model and its
// refusals, the reason and figures of an issue, the payload to send.
func accountTests() throws {
    // States while typing an IBAN: nothing wrong while it can still become one.
    let typing: [(String, AccountState, String)] = [
        ("", .empty, ""), ("  - ", .empty, ""), ("d", .incomplete, "D"), ("de89 37", .incomplete, "DE89 37"),
        ("DE89-3704-0044-0532-0130-00", .complete, "DE89 3704 0044 0532 0130 00"),
        ("DE89 3704 0044 0532 0130 01", .invalid, "DE89 3704 0044 0532 0130 01"),
    ]
    for (value, state, display) in typing {
        let c = checkAccount(kind: .iban, value: value)
        check("account: iban \(value.debugDescription) is \(state)", c.state == state && c.display == display
              && c.electronic == display.replacingOccurrences(of: " ", with: ""), "\(c)")
        check("account: iban \(value.debugDescription) says why only when invalid",
              (c.state == .invalid) == (c.code != nil && c.reason != nil && c.params != nil && c.message != nil), "\(c)")
    }
    check("account: the states print as FORMAT.md's",
          [AccountState.empty, .incomplete, .complete, .invalid].map { "\($0)" } == ["empty", "incomplete", "complete", "invalid"])
    // Reason and params of an invalid value.
    let long = checkAccount(kind: .iban, value: "DE893704004405320130001")
    check("account: too long an IBAN is LENGTH 22/23", long.state == .invalid && long.code == .invalidIban
          && long.reason == .length && long.params == AccountParams(expected: 22, actual: 23), "\(long)")
    let country = checkAccount(kind: .bic, value: "deutqq")
    check("account: a BIC country that is none is COUNTRY QQ", country.code == .invalidBic && country.reason == .country
          && country.params?.country == "QQ" && country.electronic == "DEUTQQ", "\(country)")
    let digits = checkAccount(kind: .clabe, value: "002010077777777772")
    check("account: a CLABE's check digit", digits.reason == .checkDigits && digits.params == AccountParams(), "\(digits)")
    check("account: a CUIT type from two digits on", checkAccount(kind: .cuit, value: "21").reason == .type)
    check("account: a sort code's display", checkAccount(kind: .sortCode, value: "123").display == "12-3"
          && checkAccount(kind: .sortCode, value: "123").state == .incomplete)
    check("account: the reasons print as FORMAT.md's", [Reason.layout, .country, .length, .type, .checkDigits].map { "\($0)" }
          == ["LAYOUT", "COUNTRY", "LENGTH", "TYPE", "CHECK_DIGITS"])
    // Kinds by name, as FORMAT.md spells them; another name throws UNKNOWN_ACCOUNT_KIND.
    let names = ["iban", "bic", "clabe", "cbu", "cuit", "ifsc", "sort_code", "bsb", "ca_branch", "aba"]
    for name in names {
        check("account: parseAccountKind(\(name)) round-trips", (try parseAccountKind(name: name)).description == name)
    }
    for name in ["IBAN", "swift", ""] {
        do {
            _ = try parseAccountKind(name: name)
            check("account: \(name.debugDescription) is refused", false)
        } catch let e as XborderError {
            check("account: \(name.debugDescription) is UNKNOWN_ACCOUNT_KIND", e.errorCode() == "UNKNOWN_ACCOUNT_KIND"
                  && e.errorField() == nil, "\(e)")
        }
    }
    // Validation issues carry the same reason and params; a REQUIRED one has none.
    let v = try validateBeneficiary(draftJson: draft("DE", #"{"bankId":"b","accountNumber":"DE89 3704 0044 0532 0130 001","bic":"DEUTQQFF"}"#))
    let byPath = Dictionary(v.issues.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
    check("issues: an IBAN's LENGTH with its figures", byPath["paymentInfo.accountNumber"]?.reason == .length
          && byPath["paymentInfo.accountNumber"]?.params == AccountParams(expected: 22, actual: 23), "\(v)")
    check("issues: a BIC's COUNTRY with its letters", byPath["paymentInfo.bic"]?.reason == .country
          && byPath["paymentInfo.bic"]?.params.country == "QQ", "\(v)")
    let required = try validateBeneficiary(draftJson: draft("DE", "{}")).issues
    check("issues: REQUIRED has no reason and no figures",
          required.contains { $0.code == .required } && required.allSatisfy { $0.reason == nil && $0.params == AccountParams() }, "\(required)")
    let routing = try validateBeneficiary(draftJson: draft("US", #"{"routingNumber":"021-000-021"}"#))
    check("issues: a routing number with hyphens is read as digits", routing.valid, "\(routing)")
}

let RULES_DE = #"""
{"data": {"country": "DE", "ownerType": "individual", "rules": {
    "requiredFields": [{"field": "firstName", "description": "First name"}, {"field": "address", "description": "Address",
                        "nestedFields": [{"field": "city", "description": "City"}]}],
    "paymentTypes": [{"type": "bank_account", "requiredFields": [{"field": "accountNumber", "description": "IBAN"}]}]}},
 "requestId": "req_1"}
"""#
let BANKS_DE = #"{"data": [{"id": "bank_de_001", "name": "Deutsche Bank"}, {"id": "bank_de_002"}], "requestId": "req_2"}"#

func formTests() throws {
    let fields = try beneficiaryForm(country: "DE", paymentType: "bank_account", ownerType: "individual",
                                     rulesJson: RULES_DE, banksCountry: "DE", banksJson: BANKS_DE)
    check("form: the fields in order", fields.map(\.path) == ["firstName", "address", "address.city", "paymentInfo",
          "paymentInfo.bankId", "paymentInfo.accountNumber", "paymentInfo.bic"], "\(fields.map(\.path))")
    let at = Dictionary(fields.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
    check("form: a rules field with its description", at["firstName"].map {
        $0.required && $0.source == .rules && $0.input == .text && $0.label == "First name" && $0.account == nil } == true, "\(fields)")
    check("form: a field with sub-fields is a group", at["address"]?.input == .group && at["paymentInfo"]?.input == .group
          && at["paymentInfo"]?.source == .fixed, "\(fields)")
    check("form: the bank is a choice of the bank list", at["paymentInfo.bankId"].map {
        $0.input == .choice && $0.options == [FormOption(value: "bank_de_001", label: "Deutsche Bank"),
                                              FormOption(value: "bank_de_002", label: "bank_de_002")] } == true, "\(fields)")
    check("form: an IBAN account field", at["paymentInfo.accountNumber"].map {
        $0.account == .iban && $0.length == AccountLength(min: 15, max: 34) && $0.label == "IBAN" && $0.source == .rules } == true, "\(fields)")
    check("form: the country's BIC, not required", at["paymentInfo.bic"].map {
        !$0.required && $0.source == .country && $0.account == .bic && $0.length == AccountLength(min: 8, max: 11) } == true, "\(fields)")
    check("form: sources and inputs print as FORMAT.md's", [FormSource.fixed, .rules, .country].map { "\($0)" } == ["fixed", "rules", "country"]
          && [FormInput.group, .text, .choice].map { "\($0)" } == ["group", "text", "choice"])
    // The same from a validator that read the documents once.
    let validator = BeneficiaryValidator(rulesJson: RULES_DE, banksCountry: "DE", banksJson: BANKS_DE)
    check("form: BeneficiaryValidator.form as beneficiaryForm",
          try validator.form(country: "DE", paymentType: "bank_account", ownerType: "individual") == fields)
    let us = try beneficiaryForm(country: "US", paymentType: "bank_account")
    check("form: a US bank account without documents", us.map(\.path) == ["paymentInfo", "paymentInfo.routingNumber", "paymentInfo.accountNumber"]
          && us[1].account == .aba && us[1].length == AccountLength(min: 9, max: 9) && us[2].account == nil && us[2].length == nil, "\(us)")
    // A form built on the wrong input or document is refused: code and field.
    let refusals: [(String, () throws -> [FormField], String, String?)] = [
        ("a country not ISO", { try beneficiaryForm(country: "de", paymentType: "bank_account") }, "INVALID_VALUE", "country"),
        ("an empty payment type", { try beneficiaryForm(country: "DE", paymentType: "") }, "INVALID_VALUE", "paymentType"),
        ("an owner type", { try beneficiaryForm(country: "DE", paymentType: "bank_account", ownerType: "person") }, "INVALID_VALUE", "ownerType"),
        ("rules not JSON", { try beneficiaryForm(country: "DE", paymentType: "bank_account", rulesJson: "{") }, "RULES_UNREADABLE", nil),
        ("rules of another country", { try validator.form(country: "FR", paymentType: "bank_account") }, "RULES_MISMATCH", nil),
        ("rules of another owner type", { try validator.form(country: "DE", paymentType: "bank_account", ownerType: "business") }, "RULES_MISMATCH", nil),
        ("the bare bank array", { try beneficiaryForm(country: "DE", paymentType: "bank_account", banksCountry: "DE", banksJson: "[]") }, "BANKS_UNREADABLE", nil),
        ("banks of another country", { try beneficiaryForm(country: "DE", paymentType: "bank_account", banksCountry: "FR", banksJson: BANKS_DE) }, "BANKS_MISMATCH", nil),
    ]
    for (what, build, code, field) in refusals {
        do {
            let got = try build()
            check("form: \(what) is refused", false, "\(got)")
        } catch let e as XborderError {
            guard case .Form = e else { check("form: \(what) is XborderError.Form", false, "\(e)"); continue }
            check("form: \(what) is \(code) \(field ?? "-")", e.errorCode() == code && e.errorField() == field, "\(e)")
        }
    }
}

func normalizeTests() throws {
    let typed = #"{"ownerType":"individual","country":"DE","paymentType":"bank_account","firstName":" Ana ","paymentInfo":{"bankId":"bank_de_001","accountNumber":"de89 3704-0044 0532 0130 00","bic":"deut de ff","note":"a - b"}}"#
    let out = try normalizeBeneficiary(draftJson: typed)
    let parsed = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
    let info = parsed?["paymentInfo"] as? [String: String]
    check("normalize: account details in electronic form, nothing else changed",
          info == ["bankId": "bank_de_001", "accountNumber": "DE89370400440532013000", "bic": "DEUTDEFF", "note": "a - b"]
          && parsed?["firstName"] as? String == " Ana " && parsed?.count == 5, out)
    check("normalize: twice changes nothing more", try normalizeBeneficiary(draftJson: out) == out)
    check("normalize: the normalized draft validates", try validateBeneficiary(draftJson: out).valid)
    let dashes = draft("GB", #"{"bankId":"b","sortCode":"--"}"#)
    check("normalize: never empties a value (-- stays)", try normalizeBeneficiary(draftJson: dashes).contains(#""sortCode":"--""#))
    check("normalize: not an object comes back as it is", try normalizeBeneficiary(draftJson: "[1,2]") == "[1,2]")
    check("normalize: a draft that is not JSON throws MALFORMED_JSON", codeOf { _ = try normalizeBeneficiary(draftJson: "{") } == "MALFORMED_JSON")
}

/// A store written in Swift: entry texts in a dictionary, compare-and-set under a lock.
final class DictStore: ClaimStore, @unchecked Sendable {
    private let lock = NSLock()
    private(set) var map: [String: String] = [:]
    func load(id: String, time: StoreTime) throws -> String? { lock.lock(); defer { lock.unlock() }; return map[id] }
    func compareAndSet(id: String, expected: String?, new: String?, time: StoreTime) throws -> Bool {
        lock.lock(); defer { lock.unlock() }
        if map[id] != expected { return false }
        map[id] = new
        return true
    }
}

/// A store that fails: its methods throw `thrown`, or answer foreign text.
final class FailingStore: ClaimStore, @unchecked Sendable {
    struct Down: Error {}
    let thrown: Error?
    init(_ thrown: Error?) { self.thrown = thrown }
    func load(id: String, time: StoreTime) throws -> String? { if let e = thrown { throw e }; return "not an entry" }
    func compareAndSet(id: String, expected: String?, new: String?, time: StoreTime) throws -> Bool { if let e = thrown { throw e }; return true }
}

/// The same store for async/await: an actor whose methods suspend before they act.
actor AsyncStore {
    var map: [String: String] = [:]
    func load(id: String, time: StoreTime) async -> String? { await Task.yield(); return map[id] }
    func compareAndSet(id: String, expected: String?, new: String?, time: StoreTime) async -> Bool {
        await Task.yield()
        if map[id] != expected { return false }
        map[id] = new
        return true
    }
}

/// One step against an async store: the task decides, the caller awaits its store.
func claimAsync(_ store: AsyncStore, _ step: String, _ id: String, _ token: String, _ at: UInt64,
                leaseMs: UInt64 = 30000, windowMs: UInt64? = nil) async throws -> ClaimOutcome {
    let task = try ClaimTask(step: step, id: id, token: token, atMs: at, leaseMs: leaseMs, windowMs: windowMs)
    var need = try task.start()
    while true {
        switch need {
        case .load(let id, let time):
            need = try task.loaded(entry: await store.load(id: id, time: time))
        case .compareAndSet(let id, let expected, let new, let time):
            need = try task.swapped(applied: await store.compareAndSet(id: id, expected: expected, new: new, time: time))
        case .done(let outcome):
            return outcome
        }
    }
}

final class Box<T>: @unchecked Sendable { var value: Result<T, Error>? }

/// Runs async code from this synchronous test program and waits for it.
func blocking<T>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = Box<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.value = .success(try await body()) } catch { box.value = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.value!.get()
}

func outcomeOrCode(_ block: () throws -> ClaimOutcome) -> String {
    do { return "\(try block())" } catch let e as XborderError { return e.errorCode() } catch { return "\(error)" }
}

func claimsTests() throws {
    // The built-in store, a Swift store and a task over an async store agree, step by step.
    var allKinds = Set<String>()
    for seed in 0..<4 {
        let lease: UInt64 = 50
        let window: UInt64? = seed % 2 == 1 ? 80 : nil
        let builtin = Claims(leaseMs: lease, windowMs: window)
        let mine = Claims.withStore(store: DictStore(), leaseMs: lease, windowMs: window)
        let store = AsyncStore()
        var rng = UInt64(seed) &* 6364136223846793005 &+ 1442695040888963407
        func next(_ n: Int) -> Int { rng = rng &* 6364136223846793005 &+ 1442695040888963407; return Int((rng >> 33) % UInt64(n)) }
        var at: UInt64 = 0
        var kinds = Set<String>()
        var disagreements = 0
        for _ in 0..<300 {
            at += UInt64(next(30))
            let step = ["claim", "claim", "complete", "release", "finish"][next(5)]
            let id = ["evt_1", "evt_2", "evt_3", ""][next(4)]
            let token = ["r1", "r2", "r3", ""][next(4)]
            let a = outcomeOrCode { try builtin.step(step: step, id: id, token: token, atMs: at) }
            let b = outcomeOrCode { try mine.step(step: step, id: id, token: token, atMs: at) }
            let t = at
            let c = outcomeOrCode { try blocking { try await claimAsync(store, step, id, token, t, leaseMs: lease, windowMs: window) } }
            if a != b || b != c { disagreements += 1; print("  seed \(seed): \(step) \(id) \(token) \(at): \(a) / \(b) / \(c)") }
            kinds.insert(a)
        }
        check("claims: built-in, Swift store and async task agree (seed \(seed))", disagreements == 0)
        check("claims: the sequence covers the outcomes (seed \(seed))",
              kinds.isSuperset(of: ["claimed", "completed", "duplicate", "INVALID_STEP"]), "\(kinds)")
        allKinds.formUnion(kinds)
    }
    // v3: a complete with no entry records the id as done, so fewer ids stay held; over the seeds
    // every outcome still comes up.
    check("claims: the seeds cover every outcome",
          allKinds.isSuperset(of: ["claimed", "in_progress", "completed", "duplicate", "stale", "INVALID_STEP"]), "\(allKinds)")
    let v3 = Claims()
    check("claims: complete with no entry is completed (v3)",
          try v3.step(step: "complete", id: "evt_9", token: "r1", atMs: 0) == .completed)
    check("claims: and the id is then done", try v3.step(step: "claim", id: "evt_9", token: "r2", atMs: 1) == .duplicate)
    let c = Claims()
    check("claims: claimed", try c.step(step: "claim", id: "evt_1", token: "r1", atMs: 0) == .claimed)
    check("claims: in progress", "\(try c.step(step: "claim", id: "evt_1", token: "r2", atMs: 10))" == "in_progress")
    check("claims: completed acknowledges", try c.step(step: "complete", id: "evt_1", token: "r1", atMs: 20).acknowledges())
    check("claims: duplicate", try c.step(step: "claim", id: "evt_1", token: "r3", atMs: 900) == .duplicate)
    let store = DictStore()
    _ = try Claims.withStore(store: store, leaseMs: 1000).step(step: "claim", id: "evt_1", token: "r1", atMs: 5)
    check("claims: the store holds core's text", store.map == ["evt_1": "h:5:r1"], "\(store.map)")
    for (args, field) in [(["finish", "e", "r"], "do"), (["claim", "", "r"], "id"), (["claim", "e", ""], "token")] {
        do {
            _ = try c.step(step: args[0], id: args[1], token: args[2], atMs: 0)
            check("claims: invalid \(field) throws", false)
        } catch let XborderError.Claim(code, f, _) {
            check("claims: invalid \(field)", code == "INVALID_STEP" && f == field)
        }
    }
    // Replies: core's table, with the lease of either kind of Claims.
    for claims in [Claims(leaseMs: 2500), Claims.withStore(store: DictStore(), leaseMs: 2500)] {
        check("claims: reply after claimed is nil", try claims.reply(step: "claim", outcome: .claimed) == nil)
        check("claims: in_progress is 503, Retry-After 3", try claims.reply(step: "claim", outcome: .inProgress) == ClaimReply(status: 503, retryAfterS: 3))
        check("claims: duplicate is 200", try claims.reply(step: "claim", outcome: .duplicate) == ClaimReply(status: 200, retryAfterS: nil))
        check("claims: stale on complete is 200", try claims.reply(step: "complete", outcome: .stale) == ClaimReply(status: 200, retryAfterS: nil))
        check("claims: stale on release is 500", try claims.reply(step: "release", outcome: .stale) == ClaimReply(status: 500, retryAfterS: nil))
        check("claims: reply to a step that is not one", codeOf { _ = try claims.reply(step: "finish", outcome: .stale) } == "INVALID_STEP")
    }
    check("claims: a store error's reply", claimErrorReply(code: "STORE_UNAVAILABLE") == ClaimReply(status: 503, retryAfterS: 1)
          && claimErrorReply(code: "INVALID_STEP") == ClaimReply(status: 500, retryAfterS: nil))
    for failing in [FailingStore(FailingStore.Down()), FailingStore(XborderError.Signature(code: "EMPTY_SECRET", detail: "not a store code")), FailingStore(nil)] {
        check("claims: a failing store (\(String(describing: failing.thrown))) is STORE_UNAVAILABLE",
              codeOf { _ = try Claims.withStore(store: failing).step(step: "claim", id: "evt_1", token: "r1", atMs: 0) } == "STORE_UNAVAILABLE")
    }
    // Eight threads claim one id at once: exactly one wins, in either store.
    for (name, claims) in [("built-in", Claims()), ("Swift store", Claims.withStore(store: DictStore()))] {
        var rounds = 0
        for round in 0..<20 {
            let lock = NSLock()
            var got: [ClaimOutcome] = []
            DispatchQueue.concurrentPerform(iterations: 8) { i in
                let o = try? claims.step(step: "claim", id: "evt_\(round)", token: "r\(i)", atMs: 1000)
                lock.lock(); if let o = o { got.append(o) }; lock.unlock()
            }
            if got.filter({ $0 == .claimed }).count == 1 && got.filter({ $0 == .inProgress }).count == 7 { rounds += 1 }
            else { print("  \(name) round \(round): \(got)") }
        }
        check("claims: one winner among 8 threads (\(name))", rounds == 20)
    }
    // Async claims racing on one id: one winner, and it can complete.
    let shared = AsyncStore()
    let raced = try blocking {
        try await withThrowingTaskGroup(of: ClaimOutcome.self) { group in
            for i in 0..<6 { group.addTask { try await claimAsync(shared, "claim", "evt_1", "r\(i)", 0) } }
            var all: [ClaimOutcome] = []
            for try await o in group { all.append(o) }
            return all
        }
    }
    check("claims: one winner among 6 tasks", raced.filter { $0 == .claimed }.count == 1 && raced.filter { $0 == .inProgress }.count == 5, "\(raced)")
    let entry = try blocking { await shared.map["evt_1"] } ?? ""
    let winner = String(entry.split(separator: ":", maxSplits: 2).last ?? "")
    check("claims: the async winner completes", try blocking { try await claimAsync(shared, "complete", "evt_1", winner, 5) } == .completed)
    let t = try ClaimTask(step: "claim", id: "evt_1", token: "r1", atMs: 0, leaseMs: 100)
    check("task: starts with a load", try t.start() == .load(id: "evt_1", time: StoreTime(nowMs: 0, ttlMs: nil, expiresAtMs: nil)))
    let need = try t.loaded(entry: nil)
    check("task: asks a compare-and-set of core's texts", need == .compareAndSet(id: "evt_1", expected: nil, new: "h:0:r1", time: StoreTime(nowMs: 0, ttlMs: 200, expiresAtMs: 200)), "\(need)")
    if case .load = try t.swapped(applied: false) { passed += 1 } else { failed += 1; print("FAIL task: a lost race loads again") }
    check("task: foreign text", codeOf { _ = try t.loaded(entry: "garbage") } == "STORE_UNAVAILABLE")
    _ = try t.start()
    _ = try t.loaded(entry: nil)
    do {
        try t.failed(message: "redis: connection refused")
        check("task: failed throws", false)
    } catch let XborderError.Store(code, detail) {
        check("task: failed is STORE_UNAVAILABLE with the host's message", code == "STORE_UNAVAILABLE" && detail.contains("connection refused"), detail)
    }
    check("task: a late answer after failed is refused", codeOf { _ = try t.swapped(applied: true) } == "STORE_UNAVAILABLE")
}

// Why `got` does not hold the `want` lines in this order (other lines may come between), or nil.
func missingLines(_ want: [String], _ got: [String]) -> String? {
    var k = 0
    for line in want {
        while k < got.count && got[k] != line { k += 1 }
        if k == got.count { return "did not print \(line.debugDescription) (after the lines before it); it printed \(got)" }
        k += 1
    }
    return nil
}

// Every ```swift block of swift.md (Readme.swift, written by readme.sh): none throws, each prints
// the lines under its `// prints:`.
func readmeTests() throws {
    check("\(readmeFile): has its blocks", readmeBlocks.count >= 8, "\(readmeBlocks.count)")
    for block in readmeBlocks {
        let name = "\(readmeFile) block at line \(block.line)"
        do {
            let out = try blocking { try await readmeRun(block.run) }
            check("\(name): says what it prints", !block.prints.isEmpty)
            if let why = missingLines(block.prints, out) { check(name, false, why) } else { check(name, true) }
        } catch {
            check(name, false, "threw \(error)")
        }
    }
}

/// AsyncStore as the API's AsyncClaimStore.
extension AsyncStore: AsyncClaimStore {}

/// A store whose every call throws `thrown`.
struct DownStore: AsyncClaimStore {
    struct Down: Error {}
    func load(id: String, time: StoreTime) async throws -> String? { throw Down() }
    func compareAndSet(id: String, expected: String?, new: String?, time: StoreTime) async throws -> Bool { throw Down() }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var ids: [String] = []
    func add(_ id: String) { lock.lock(); ids.append(id); lock.unlock() }
}

struct PersistDown: Error {}

/// handleDelivery, the one call (issue 33): over Claims (in memory, a Swift store) and over an
/// async store; the answer is core's, the persist's error comes back.
func handlingTests() throws {
    let receiver = try Receiver(secret: SECRET)
    let (body, sig) = signed("order:created", id: "evt_h1")
    for (name, claims) in [("built-in", Claims()), ("Swift store", Claims.withStore(store: DictStore()))] {
        let saved = Counter()
        let a = try blocking { try await handleDelivery(receiver: receiver, claims: claims, body: body, signature: sig) { saved.add($0.id) } }
        check("handle (\(name)): 200, completed, persisted once",
              a.status == 200 && a.retryAfterS == nil && a.outcome == .completed && a.code == nil && a.persisted
                && a.persistError == nil && saved.ids == ["evt_h1"], "\(a) \(saved.ids)")
        let again = try blocking { try await handleDelivery(receiver: receiver, claims: claims, body: body, signature: sig) { saved.add($0.id) } }
        check("handle (\(name)): the redelivery is a duplicate, not persisted",
              again.status == 200 && again.outcome == .duplicate && !again.persisted && saved.ids.count == 1, "\(again)")
        let (body2, sig2) = signed("order:created", id: "evt_h2")
        let failed = try blocking {
            try await handleDelivery(receiver: receiver, claims: claims, body: body2, signature: sig2, token: "t1", clock: { 1000 }) { _ in throw PersistDown() }
        }
        check("handle (\(name)): a failing persist is 500 PERSIST_FAILED, released, with the error",
              failed.status == 500 && failed.code == "PERSIST_FAILED" && failed.outcome == .released && !failed.persisted
                && failed.persistError is PersistDown, "\(failed)")
        let retried = try blocking {
            try await handleDelivery(receiver: receiver, claims: claims, body: body2, signature: sig2, token: "t2", clock: { 2000 }) { saved.add($0.id) }
        }
        check("handle (\(name)): the retry persists", retried.status == 200 && retried.persisted && saved.ids.last == "evt_h2", "\(retried)")
    }
    let held = Claims(leaseMs: 30000)
    _ = try held.step(step: "claim", id: "evt_h3", token: "other", atMs: 0)
    let (body3, sig3) = signed("order:created", id: "evt_h3")
    let busy = try blocking { try await handleDelivery(receiver: receiver, claims: held, body: body3, signature: sig3, clock: { 10 }) { _ in } }
    check("handle: held elsewhere is 503, Retry-After 30",
          busy.status == 503 && busy.retryAfterS == 30 && busy.headers == ["Retry-After": "30"] && busy.outcome == .inProgress, "\(busy)")
    let bad = try blocking { try await handleDelivery(receiver: receiver, claims: Claims(), body: body3, signature: String(repeating: "0", count: 64)) { _ in } }
    check("handle: a bad signature is 400 SIGNATURE_MISMATCH", bad.status == 400 && bad.code == "SIGNATURE_MISMATCH" && bad.outcome == nil, "\(bad)")

    // Async: the claims in an actor store whose every call suspends.
    let store = AsyncStore()
    let saved = Counter()
    let (body4, sig4) = signed("order:created", id: "evt_h4")
    let s = try blocking { try await handleDelivery(receiver: receiver, store: store, body: body4, signature: sig4) { saved.add($0.id) } }
    check("handle (async): 200, completed, persisted once", s.status == 200 && s.outcome == .completed && s.persisted && saved.ids == ["evt_h4"], "\(s)")
    let done = try blocking { await store.map["evt_h4"] } ?? ""
    check("handle (async): the store holds the done entry", done.hasPrefix("d:"), done)
    let (body5, sig5) = signed("order:created", id: "evt_h5")
    let f = try blocking {
        try await handleDelivery(receiver: receiver, store: store, body: body5, signature: sig5, leaseMs: 1000) { _ in
            await Task.yield()
            throw PersistDown()
        }
    }
    check("handle (async): a failing persist is 500 PERSIST_FAILED with the error",
          f.status == 500 && f.code == "PERSIST_FAILED" && f.outcome == .released && f.persistError is PersistDown, "\(f)")
    check("handle (async): the release freed the entry", try blocking { await store.map["evt_h5"] } == nil)
    let u = try blocking { try await handleDelivery(receiver: receiver, store: DownStore(), body: body5, signature: sig5) { saved.add($0.id) } }
    check("handle (async): a store that throws is 503 STORE_UNAVAILABLE",
          u.status == 503 && u.code == "STORE_UNAVAILABLE" && !u.persisted && saved.ids.count == 1, "\(u)")
    var cancelled = false
    do {
        _ = try blocking { try await handleDelivery(receiver: receiver, store: store, body: body, signature: sig) { _ in throw CancellationError() } }
    } catch is CancellationError { cancelled = true }
    check("handle (async): a cancellation is rethrown", cancelled)

    // Act by act: the order is core's; out of order is INVALID_STEP.
    let h = DeliveryHandling(receiver: receiver, claims: Claims(), body: body, signature: sig, token: "t")
    check("handling: starts with the claim", h.next() == .claim(id: "evt_h1"))
    check("handling: persisted before the claim is INVALID_STEP", codeOf { _ = try h.persisted(ok: true) } == "INVALID_STEP")
    if case let .persist(envelope) = try h.step(atMs: 5) { check("handling: the claim goes on to the persist", envelope.id == "evt_h1") }
    else { check("handling: the claim goes on to the persist", false) }
    check("handling: then the complete", try h.persisted(ok: true) == .complete(id: "evt_h1"))
    if case let .answer(answer) = try h.step(atMs: 6) { check("handling: answered 200", answer.reply.status == 200 && h.answer() == answer) }
    else { check("handling: answered 200", false) }
    let own = DeliveryHandling.withStoreSteps(receiver: receiver, body: body, signature: sig, token: "t", leaseMs: 1000)
    check("handling (own store): the claim asks a load", try own.step(atMs: 0) == .load(id: "evt_h1", time: StoreTime(nowMs: 0, ttlMs: nil, expiresAtMs: nil)))
    check("handling (own store): then a compare-and-set",
          try own.loaded(entry: nil) == .compareAndSet(id: "evt_h1", expected: nil, new: "h:0:t", time: StoreTime(nowMs: 0, ttlMs: 2000, expiresAtMs: 2000)))

    // In a transaction: claim, persist (not committed), complete, commit, then the answer; a
    // failed commit releases the claim (500 PERSIST_FAILED). lastStep(): each step's result.
    let tx = DeliveryHandling(receiver: receiver, claims: Claims(), body: body, signature: sig, token: "t", inTransaction: true)
    check("transaction: no step yet", tx.lastStep() == nil)
    check("transaction: committed before the commit is INVALID_STEP", codeOf { _ = try tx.committed(ok: true) } == "INVALID_STEP")
    if case .persist = try tx.step(atMs: 1) { check("transaction: the claim goes on to the persist", true) }
    else { check("transaction: the claim goes on to the persist", false) }
    let claimStep = tx.lastStep()
    check("transaction: lastStep claim:claimed", claimStep?.step == "claim" && claimStep?.outcome == .claimed && claimStep?.code == nil,
          "\(String(describing: claimStep))")
    check("transaction: then the complete", try tx.persisted(ok: true) == .complete(id: "evt_h1"))
    check("transaction: the complete goes on to the commit", try tx.step(atMs: 2) == .commit(id: "evt_h1"))
    check("transaction: lastStep complete:completed", tx.lastStep()?.step == "complete" && tx.lastStep()?.outcome == .completed)
    check("transaction: no answer before the commit", tx.answer() == nil)
    if case let .answer(a) = try tx.committed(ok: true) {
        check("transaction: committed, 200 completed", a.reply.status == 200 && a.outcome == .completed && a.persisted, "\(a)")
    } else { check("transaction: committed, 200 completed", false) }
    let txFail = DeliveryHandling(receiver: receiver, claims: Claims(), body: body, signature: sig, token: "t", inTransaction: true)
    _ = try txFail.step(atMs: 1)
    _ = try txFail.persisted(ok: true)
    _ = try txFail.step(atMs: 2)
    check("transaction: a failed commit releases", try txFail.committed(ok: false) == .release(id: "evt_h1"))
    if case let .answer(a) = try txFail.step(atMs: 3) {
        check("transaction: 500 PERSIST_FAILED after the release", a.reply.status == 500 && a.code == "PERSIST_FAILED" && !a.persisted, "\(a)")
    } else { check("transaction: 500 PERSIST_FAILED after the release", false) }
    // In-memory Claims are no transaction's: the completion stays after the failed commit, so the
    // release finds it completed (stale). A SQL store rolls back, and the release then releases
    // (the Kotlin API test shows that over the host's own store).
    check("transaction: lastStep release:stale over in-memory Claims",
          txFail.lastStep()?.step == "release" && txFail.lastStep()?.outcome == .stale, "\(String(describing: txFail.lastStep()))")
}

func main() throws {
    check("own HMAC matches the signer", hmacHex(Array(SECRET.utf8), BODY) == (try sign(secret: SECRET, body: BODY)))
    var keys = Set((1..<SECRET.count).map { String(SECRET.prefix($0)) })
    for ch in SECRET { keys.insert(String(ch)) }
    for k in keys.sorted() {
        let forged = hmacHex(Array(k.utf8), BODY)
        check("verify refuses key '\(k)'", codeOf { try verify(secret: SECRET, body: BODY, signature: forged) } == "SIGNATURE_MISMATCH")
        let d = try Receiver(secret: SECRET).receive(body: BODY, signature: forged)
        check("receive refuses key '\(k)'", d.action == .reject && d.errorCode == "SIGNATURE_MISMATCH", "\(d)")
    }
    let good = hmacHex(Array(SECRET.utf8), BODY)
    check("verify accepts the whole secret", codeOf { try verify(secret: SECRET, body: BODY, signature: good) } == nil)
    check("receive accepts the whole secret", try Receiver(secret: SECRET).receive(body: BODY, signature: good).action == .process)
    let secret = "clé_é"
    let utf8 = hmacHex(Array(secret.utf8), BODY)
    let latin1 = hmacHex(Array(secret.data(using: .isoLatin1)!), BODY)
    check("UTF-8 and Latin-1 keys differ", utf8 != latin1)
    check("non-ASCII secret signs as UTF-8", (try sign(secret: secret, body: BODY)) == utf8)
    check("non-ASCII secret refuses Latin-1", codeOf { try verify(secret: secret, body: BODY, signature: latin1) } == "SIGNATURE_MISMATCH")
    // Contract v3: a secret with whitespace at either end is refused wherever it is given.
    for padded in [" " + SECRET, SECRET + "\n", "\t" + SECRET + "\r\n"] {
        let shown = padded.debugDescription
        check("padded secret \(shown): verify", codeOf { try verify(secret: padded, body: BODY, signature: good) } == "MALFORMED_SECRET")
        check("padded secret \(shown): sign", codeOf { _ = try sign(secret: padded, body: BODY) } == "MALFORMED_SECRET")
        check("padded secret \(shown): Receiver", codeOf { _ = try Receiver(secret: padded) } == "MALFORMED_SECRET")
        check("padded secret \(shown): in a rotation list", codeOf { _ = try Receiver.withSecrets(secrets: [SECRET, padded]) } == "MALFORMED_SECRET")
        check("padded secret \(shown): verifyWithSecrets",
              codeOf { try verifyWithSecrets(secrets: [padded, SECRET], body: BODY, signature: good) } == "MALFORMED_SECRET")
    }
    check("whitespace inside a secret is part of the key",
          codeOf { try verify(secret: "whsec test", body: BODY, signature: hmacHex(Array("whsec test".utf8), BODY)) } == nil)
    check("empty secret", codeOf { _ = try Receiver(secret: "") } == "EMPTY_SECRET")
    check("empty list", codeOf { _ = try Receiver.withSecrets(secrets: []) } == "EMPTY_SECRET")
    let old = hmacHex(Array("whsec_old".utf8), BODY)
    check("rotation verify", codeOf { try verifyWithSecrets(secrets: ["whsec_old", SECRET], body: BODY, signature: old) } == nil)
    check("rotation receive", try Receiver.withSecrets(secrets: ["whsec_old", SECRET], window: 10).receive(body: BODY, signature: old).action == .process)
    check("filters", (try listQuery(paramsJson: #"{"sortOrder":"desc","filters":{"status":"success"}}"#)) ==
        "page=0&pageSize=10&sortBy=createdAt&sortOrder=DESC&status=success")
    do {
        _ = try listQuery(paramsJson: #"{"status":"success"}"#)
        check("unknown parameter throws", false)
    } catch let e as XborderError {
        check("unknown parameter code and field", e.errorCode() == "UNKNOWN_PARAMETER" && e.errorField() == "status", "\(e)")
    }
    try catalogTests()
    try walkerTests()
    try beneficiaryTests()
    try accountTests()
    try formTests()
    try normalizeTests()
    try claimsTests()
    try handlingTests()
    try readmeTests()
    print("swift api: \(passed) passed, \(failed) failed")
}

// ENTRY

do { try main() } catch { failed += 1; print("FAIL threw \(error)") }
exit(failed > 0 ? 1 : 0)
