// Conformance runner for the Swift binding (uniffi's generated module, compiled into this
// program with swiftc). Vectors are read with Foundation's JSONSerialization. Arguments are
// `folder=displayName` pairs: the vector folders as seen inside the Swift root, and the names to
// print in failures. Compares per tests/runners/CONTRACT.md.
import Foundation

typealias Obj = [String: Any]

func isBool(_ v: Any) -> Bool {
    guard let n = v as? NSNumber else { return false }
    return String(cString: n.objCType) == "c"  // JSONSerialization's true/false
}

func isNumber(_ v: Any) -> Bool { v is NSNumber && !isBool(v) }

func jsonText(_ v: Any) -> String {
    let data = try! JSONSerialization.data(withJSONObject: v, options: [.fragmentsAllowed, .sortedKeys])
    return String(decoding: data, as: UTF8.self)
}

func parse(_ text: String) -> Any {
    try! JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
}

func str(_ o: Obj, _ k: String) -> String? { o[k] as? String }

func bodyBytes(_ o: Obj) -> Data {
    if let b64 = str(o, "bodyBase64") { return Data(base64Encoded: b64)! }
    return Data((str(o, "body") ?? "").utf8)
}

func num(_ v: UInt64) -> NSNumber { NSNumber(value: v) }

func fail(_ e: XborderError) -> Obj { ["ok": false, "error": e.errorCode()] }

func classifyOp(_ i: Obj) -> Obj {
    let c = classifyEvent(name: str(i, "name")!)
    var o: Obj = ["kind": "\(c.kind)"]
    if let e = c.entity { o["entity"] = e }
    if let a = c.action { o["action"] = a }
    return o
}

func checkRegistrationOp(_ i: Obj) -> Obj {
    let existing = (i["existingWebhooks"] as? NSNumber)?.uint32Value ?? 0
    let r = checkRegistration(events: i["events"] as! [String], existingWebhooks: existing)
    if r.ok { return ["ok": true, "events": r.events] }
    return ["ok": false, "code": r.code as Any,
            "rejected": r.rejected.map { ["event": $0.event, "reason": "\($0.reason)"] as Obj }]
}

func signOp(_ i: Obj) -> Obj {
    do { return ["signature": try sign(secret: str(i, "secret")!, body: bodyBytes(i))] }
    catch let e as XborderError { return fail(e) } catch { return ["error": "\(error)"] }
}

func verifyOp(_ i: Obj) -> Obj {
    do {
        if let secrets = i["secrets"] as? [String] {
            try verifyWithSecrets(secrets: secrets, body: bodyBytes(i), signature: str(i, "signature"))
        } else if let secret = str(i, "secret") {
            try verify(secret: secret, body: bodyBytes(i), signature: str(i, "signature"))
        } else {
            try verifyWithSecrets(secrets: [], body: bodyBytes(i), signature: str(i, "signature"))
        }
        return ["ok": true]
    } catch let e as XborderError { return fail(e) } catch { return ["error": "\(error)"] }
}

func decodeOp(_ i: Obj) -> Obj {
    do {
        let e = try decodeEnvelope(body: bodyBytes(i))
        var o: Obj = ["ok": true, "id": e.id, "event": e.event, "kind": "\(e.kind)",
                      "entityId": e.entityId, "entityType": e.entityType]
        // `data` as this host's parser reads it; left out when it refuses the raw text (a lone
        // surrogate escape or 1e400 inside entity.data decode, and the hostile vectors then
        // do not compare `data`), as the Rust runner does.
        if let d = e.dataJson,
           let v = try? JSONSerialization.jsonObject(with: Data(d.utf8), options: [.fragmentsAllowed]) {
            o["data"] = v
        }
        return o
    } catch let e as XborderError {
        var o = fail(e)
        if let f = e.errorField() { o["field"] = f }
        return o
    } catch { return ["error": "\(error)"] }
}

func receiveOp(_ i: Obj) throws -> Obj {
    let deliveries = i["deliveries"] as! [Obj]
    let window = (i["window"] as? NSNumber)?.uint64Value ?? 10_000
    let rx: Receiver
    do {
        rx = try Receiver(secret: str(i, "secret")!, window: window)
    } catch let e as XborderError {
        return ["decisions": deliveries.map { _ in ["action": "reject", "error": e.errorCode()] as Obj }]
    }
    var decisions: [Obj] = []
    for d in deliveries {
        let dec = rx.receive(body: bodyBytes(d), signature: str(d, "signature"))
        var o: Obj = ["action": "\(dec.action)"]
        if let c = dec.errorCode { o["error"] = c }
        let commit = (d["commit"] as? NSNumber)?.boolValue ?? true
        if (dec.action == .process || dec.action == .ignore) && commit {
            try rx.commit(id: dec.envelope!.id)
        }
        decisions.append(o)
    }
    return ["decisions": decisions]
}

/// A vector's document as the binding takes it, the response text: a JSON string is that text
/// itself (never re-serialised), any other value its JSON text; null or absent is not given.
func document(_ v: Any?) -> String? {
    guard let v = v, !(v is NSNull) else { return nil }
    return v as? String ?? jsonText(v)
}

func validateOp(_ i: Obj) throws -> Obj {
    let banks = i["banks"] as? Obj
    let v = try validateBeneficiary(
        draftJson: jsonText(i["draft"]!),
        rulesJson: document(i["rules"]),
        banksCountry: banks.flatMap { str($0, "country") },
        banksJson: document(banks?["response"]))
    return ["valid": v.valid, "issues": v.issues.map { ["path": $0.path, "code": "\($0.code)"] as Obj }]
}

func queryOp(_ i: Obj) -> Obj {
    do { return ["ok": true, "query": try listQuery(paramsJson: jsonText(i))] }
    catch let e as XborderError {
        var o = fail(e)
        if let f = e.errorField() { o["field"] = f }
        return o
    } catch { return ["error": "\(error)"] }
}

func infoOp(_ i: Obj) -> Obj {
    let request = (i["request"] as? Obj).map {
        PageRequest(page: ($0["page"] as? NSNumber)?.uint64Value, pageSize: ($0["pageSize"] as? NSNumber)?.uint64Value)
    }
    do {
        let p = try pageInfo(responseJson: jsonText(i["response"]!), request: request)
        return ["ok": true, "total": num(p.total), "page": num(p.page), "pageSize": num(p.pageSize),
                "totalPages": num(p.totalPages), "hasNext": p.hasNext, "hasNextConflict": p.hasNextConflict, "hasPrevious": p.hasPrevious,
                "firstItem": num(p.firstItem), "lastItem": num(p.lastItem),
                "nextPage": p.nextPage.map { num($0) as Any } ?? NSNull()]
    } catch let e as XborderError { return fail(e) } catch { return ["error": "\(error)"] }
}

/// FORMAT.md's walk through the public PageWalker: ask for the next query (none: done), feed the
/// next page (none left: not done); each fed query, each record's `id` (null when absent) and
/// each drift code are collected. A page the walker cannot read ends the case with its code.
func walkOp(_ i: Obj) throws -> Obj {
    let walker: PageWalker
    do {
        let request = i["request"].flatMap { v -> Any? in v is NSNull ? nil : v }
        walker = try PageWalker(paramsJson: request.map(jsonText) ?? "{}")
    } catch let e as XborderError { return fail(e) }
    var pages = (i["pages"] as! [Any]).makeIterator()
    var queries: [String] = []
    var records: [Any] = []
    var drifts: [String] = []
    var done = false
    while true {
        guard let query = walker.nextQuery() else { done = true; break }
        guard let page = pages.next() else { break }
        let step: WalkStep
        do { step = try walker.feed(responseJson: jsonText(page)) } catch let e as XborderError { return fail(e) }
        queries.append(query)
        for r in step.recordsJson {
            let record = try JSONSerialization.jsonObject(with: Data(r.utf8), options: [.fragmentsAllowed])
            records.append((record as? Obj)?["id"] ?? NSNull())
        }
        for d in step.drifts where !drifts.contains(d.code) { drifts.append(d.code) }
    }
    return ["queries": queries, "records": records, "done": done, "drifts": drifts]
}

/// The runner's own claims store, in Swift: entry texts in a dictionary, compare-and-set under a lock.
final class DictStore: ClaimStore, @unchecked Sendable {
    private let lock = NSLock()
    private var map: [String: String] = [:]
    func load(id: String) throws -> String? { lock.lock(); defer { lock.unlock() }; return map[id] }
    func compareAndSet(id: String, expected: String?, new: String?, ttlMs: UInt64?) throws -> Bool {
        lock.lock(); defer { lock.unlock() }
        if map[id] != expected { return false }
        map[id] = new
        return true
    }
}

func claimResults(_ claims: Claims, _ steps: [Obj]) -> [String] {
    steps.map { s in
        do {
            return "\(try claims.step(step: str(s, "do")!, id: str(s, "id")!, token: str(s, "token")!, atMs: (s["at"] as! NSNumber).uint64Value))"
        } catch let e as XborderError { return e.errorCode() } catch { return "\(error)" }
    }
}

// Twice, as FORMAT.md asks: the built-in store, then a store written here.
func claimsOp(_ i: Obj) throws -> Obj {
    let lease = (i["leaseMs"] as! NSNumber).uint64Value
    // FORMAT.md: no windowMs, a done id is a duplicate for ever; the API's default is 7 days: the longest window stands for it.
    let window = (i["windowMs"] as? NSNumber)?.uint64Value ?? UInt64.max
    let steps = i["steps"] as! [Obj]
    let builtin = claimResults(Claims(leaseMs: lease, windowMs: window), steps)
    let own = claimResults(Claims.withStore(store: DictStore(), leaseMs: lease, windowMs: window), steps)
    if builtin != own {
        return ["error": "the built-in store gave \(builtin), the runner's own store \(own)"]
    }
    return ["results": builtin]
}

let ops: [String: (Obj) throws -> Obj] = [
    "event.classify": classifyOp,
    "event.check_registration": checkRegistrationOp,
    "event.matches": { i in ["matches": eventMatches(subscriptions: i["subscriptions"] as! [String], event: str(i, "event")!)] },
    "signature.sign": signOp,
    "signature.verify": verifyOp,
    "envelope.decode": decodeOp,
    "webhook.receive": receiveOp,
    "beneficiary.validate": validateOp,
    "pagination.query": queryOp,
    "pagination.info": infoOp,
    "pagination.walk": walkOp,
    "delivery.claims": claimsOp,
]

/// How the values of a key compare: `issues`/`rejected` as multisets, `drifts` as sets.
enum Compare { case exact, multiset, set }

func compareOf(_ key: String) -> Compare {
    switch key {
    case "issues", "rejected": return .multiset
    case "drifts": return .set
    default: return .exact
    }
}

// Deep equality: numbers by value, booleans apart from numbers; arrays per `how`.
func equal(_ a: Any, _ b: Any, _ how: Compare = .exact) -> Bool {
    if a is NSNull || b is NSNull { return a is NSNull && b is NSNull }
    if isBool(a) || isBool(b) {
        guard let x = a as? NSNumber, let y = b as? NSNumber, isBool(a) && isBool(b) else {
            if let x = a as? Bool, let y = b as? Bool, !isNumber(a), !isNumber(b) { return x == y }
            return false
        }
        return x.boolValue == y.boolValue
    }
    if let x = a as? NSNumber, let y = b as? NSNumber {
        return Decimal(string: x.stringValue) == Decimal(string: y.stringValue)
    }
    if let x = a as? String, let y = b as? String { return x == y }
    if let x = a as? [Any], let y = b as? [Any] {
        switch how {
        case .set:  // each distinct value once, order and count ignored
            return x.allSatisfy { item in y.contains { equal(item, $0) } }
                && y.allSatisfy { item in x.contains { equal(item, $0) } }
        case .exact:
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case .multiset:
            guard x.count == y.count else { return false }
            var left = y
            for item in x {
                guard let k = left.firstIndex(where: { equal(item, $0) }) else { return false }
                left.remove(at: k)
            }
            return true
        }
    }
    if let x = a as? Obj, let y = b as? Obj {
        return Set(x.keys) == Set(y.keys) && x.keys.allSatisfy { equal(x[$0]!, y[$0]!, compareOf($0)) }
    }
    return false
}

func show(_ v: Any) -> String { jsonText(v) }

func mismatch(_ expect: Obj, _ actual: Obj) -> String? {
    for key in expect.keys.sorted() {
        let want = expect[key]!
        guard let got = actual[key] else { return "`\(key)` missing (want \(show(want)); got \(show(actual)))" }
        if !equal(want, got, compareOf(key)) {
            return "`\(key)`: want \(show(want)), got \(show(got))"
        }
    }
    return nil
}

/// Ops FORMAT.md defines that this runner does not implement yet: counted as skipped.
let notYet: Set<String> = []

/// Runs the vectors of each `folder=displayName` argument; prints the FAIL/SKIP lines and the
/// closing line. The SwiftPM package's XCTest (bindings-uniffi/swift) calls it as well.
func runVectors(_ args: [String]) -> (passed: Int, failed: Int, skipped: Int) {
    var passed = 0
    var failed = 0
    var skipped: [String: Int] = [:]
    for arg in args {
        let parts = arg.split(separator: "=", maxSplits: 1).map(String.init)
        let dir = parts[0], display = parts.count > 1 ? parts[1] : parts[0]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        for name in names.filter({ $0.hasSuffix(".json") }).sorted() {
            let doc = parse(try! String(contentsOfFile: dir + "/" + name, encoding: .utf8)) as! Obj
            for c in doc["cases"] as! [Obj] {
                let opName = c["op"] as! String
                if notYet.contains(opName) { skipped[opName, default: 0] += 1; continue }
                var why: String?
                if let op = ops[opName] {
                    do { why = mismatch(c["expect"] as! Obj, try op(c["input"] as! Obj)) }
                    catch { why = "threw \(error)" }
                } else {
                    why = "op `\(opName)` is not defined by FORMAT.md"
                }
                if let why = why {
                    failed += 1
                    print("FAIL \(display)/\(name) :: \(c["name"] as? String ?? "?"): \(why)")
                } else {
                    passed += 1
                }
            }
        }
    }
    for (op, n) in skipped.sorted(by: { $0.key < $1.key }) { print("SKIP \(op) (\(n))") }
    let nSkipped = skipped.values.reduce(0, +)
    print("conformance: \(passed) passed, \(failed) failed" + (nSkipped > 0 ? ", \(nSkipped) skipped" : ""))
    return (passed, failed, nSkipped)
}

// ENTRY (swiftc's main.swift; the SwiftPM test target takes the file up to this line)
exit(runVectors(Array(CommandLine.arguments.dropFirst())).failed > 0 ? 1 : 0)
