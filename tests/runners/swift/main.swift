// Conformance runner for the Swift binding (uniffi's generated module, compiled into this
// program with swiftc). Vectors are read with Foundation's JSONSerialization. Arguments are
// `folder=displayName` pairs: the vector folders as seen inside the Swift root, and the names to
// print in failures (a file of XBORDER_VECTOR_FILES comes as a folder of its own, run.sh copies
// it there). Compares per tests/runners/CONTRACT.md and FORMAT.md's v4 matching rules.
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

/// An issue as the wire has it: `reason` and `params` (the figures present, `{}` when none) on
/// an account-detail issue; `label` where the rules document gives one.
func issueJson(_ i: Issue) -> Obj {
    var o: Obj = ["path": i.path, "code": "\(i.code)", "message": i.message]
    if let l = i.label { o["label"] = l }
    if let r = i.reason {
        o["reason"] = "\(r)"
        o["params"] = paramsJson(i.params)
    }
    return o
}

func paramsJson(_ p: AccountParams) -> Obj {
    var o: Obj = [:]
    if let n = p.expected { o["expected"] = NSNumber(value: n) }
    if let n = p.actual { o["actual"] = NSNumber(value: n) }
    if let c = p.country { o["country"] = c }
    return o
}

func validateOp(_ i: Obj) throws -> Obj {
    let banks = i["banks"] as? Obj
    let v = try validateBeneficiary(
        draftJson: jsonText(i["draft"] ?? NSNull()),
        rulesJson: document(i["rules"]),
        banksCountry: banks.flatMap { str($0, "country") },
        banksJson: document(banks?["response"]))
    return ["valid": v.valid, "issues": v.issues.map(issueJson)]
}

func errorJson(_ e: XborderError) -> Obj {
    var o = fail(e)
    if let f = e.errorField() { o["field"] = f }
    return o
}

/// account.check: the kind's name read by parseAccountKind (UNKNOWN_ACCOUNT_KIND), then checkAccount.
func accountCheckOp(_ i: Obj) -> Obj {
    let kind: AccountKind
    do { kind = try parseAccountKind(name: str(i, "kind")!) } catch let e as XborderError { return fail(e) }
    catch { return ["error": "\(error)"] }
    let c = checkAccount(kind: kind, value: str(i, "value")!)
    var o: Obj = ["state": "\(c.state)", "electronic": c.electronic, "display": c.display]
    if let code = c.code { o["code"] = "\(code)" }
    if let r = c.reason { o["reason"] = "\(r)" }
    if let p = c.params { o["params"] = paramsJson(p) }
    return o
}

/// beneficiary.form: a value that is not a string is handed over as "" (not a valid one); an
/// ownerType absent or null is not given.
func formOp(_ i: Obj) -> Obj {
    let banks = i["banks"] as? Obj
    let owner: String? = i["ownerType"].flatMap { $0 is NSNull ? nil : ($0 as? String ?? "") }
    do {
        let fields = try beneficiaryForm(
            country: str(i, "country") ?? "", paymentType: str(i, "paymentType") ?? "", ownerType: owner,
            rulesJson: document(i["rules"]), banksCountry: banks.flatMap { str($0, "country") },
            banksJson: document(banks?["response"]))
        return ["fields": fields.map { f -> Obj in
            var o: Obj = ["path": f.path, "required": f.required, "source": "\(f.source)", "input": "\(f.input)",
                          "label": f.label]
            if f.input == .choice { o["options"] = f.options.map { ["value": $0.value, "label": $0.label] as Obj } }
            if let a = f.account { o["account"] = "\(a)" }
            if let l = f.length { o["length"] = ["min": NSNumber(value: l.min), "max": NSNumber(value: l.max)] as Obj }
            return o
        }]
    } catch let e as XborderError { return errorJson(e) } catch { return ["error": "\(error)"] }
}

func normalizeOp(_ i: Obj) throws -> Obj {
    ["draft": parse(try normalizeBeneficiary(draftJson: jsonText(i["draft"] ?? NSNull())))]
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

/// Contract v4: an error answer through readApiError (a string body is the response text, read by
/// readApiErrorText; anything else the parsed body, as JSON text).
func apiErrorOp(_ i: Obj) throws -> Obj {
    let headers = ((i["headers"] as? Obj) ?? [:]).sorted { $0.key < $1.key }
        .map { HttpHeader(name: $0.key, value: $0.value as! String) }
    let method = str(i, "method")!
    let status = UInt16((i["status"] as! NSNumber).intValue)
    let e: ApiErrorInfo
    switch i["body"] {
    case nil, is NSNull: e = try readApiError(method: method, status: status, headers: headers)
    case let text as String: e = readApiErrorText(method: method, status: status, text: text, headers: headers)
    case let body?: e = try readApiError(method: method, status: status, headers: headers, bodyJson: jsonText(body))
    }
    var requestId: Any = NSNull()
    switch e.requestId {
    case let .text(value)?: requestId = value
    case let .integer(value)?: requestId = NSNumber(value: value)
    case nil: break
    }
    return ["code": e.code ?? NSNull(), "message": e.message ?? NSNull(), "details": e.details ?? NSNull(),
            "requestId": requestId, "retry": "\(e.retry)", "afterMs": e.afterMs.map(num) ?? NSNull()]
}

/// Contract v4: the public CatchUp fed the vector's pages as `pagination.walk` feeds a PageWalker:
/// its events (oldest first), checkpoint and the set of drift codes.
func catchUpOp(_ i: Obj) throws -> Obj {
    let walk: CatchUp
    do {
        walk = try CatchUp(since: str(i, "since"), overlapMs: (i["overlapMs"] as? NSNumber)?.int64Value,
                           pageSize: (i["pageSize"] as? NSNumber)?.int64Value)
    } catch let e as XborderError { return fail(e) }
    var pages = (i["pages"] as! [Any]).makeIterator()
    var queries: [String] = []
    var done = false
    while true {
        guard let query = walk.nextQuery() else { done = true; break }
        guard let page = pages.next() else { break }
        do { _ = try walk.feed(pageJson: jsonText(page)) } catch let e as XborderError { return fail(e) }
        queries.append(query)
    }
    let events: [Any] = walk.events().map { ["id": $0.id, "event": $0.event, "entityId": $0.entityId, "entityType": $0.entityType] }
    let drifts = Array(Set(walk.drifts().map { $0.code })).sorted()
    return ["queries": queries, "events": events, "checkpoint": walk.checkpoint() ?? NSNull(), "done": done, "drifts": drifts]
}

/// The runner's own claims store, in Swift: entry texts in a dictionary, compare-and-set under a lock.
final class DictStore: ClaimStore, @unchecked Sendable {
    private let lock = NSLock()
    private var map: [String: String] = [:]
    func load(id: String, time: StoreTime) throws -> String? { lock.lock(); defer { lock.unlock() }; return map[id] }
    func compareAndSet(id: String, expected: String?, new: String?, time: StoreTime) throws -> Bool {
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

/// The runner's own async store (AsyncClaimStore, the async path): an actor whose every call
/// suspends before it acts.
actor AsyncDictStore: AsyncClaimStore {
    private var map: [String: String] = [:]
    func load(id: String, time: StoreTime) async throws -> String? { await Task.yield(); return map[id] }
    func compareAndSet(id: String, expected: String?, new: String?, time: StoreTime) async throws -> Bool {
        await Task.yield()
        if map[id] != expected { return false }
        map[id] = new
        return true
    }
}

final class ResultBox<T>: @unchecked Sendable { var value: Result<T, Error>? }

/// A vector's input, read (never changed) by the task that runs it.
final class InputBox: @unchecked Sendable {
    let value: Obj
    init(_ value: Obj) { self.value = value }
}

/// Runs async code from the synchronous runner and waits for it.
func waitFor<T>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.value = .success(try await body()) } catch { box.value = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.value!.get()
}

func answerObj(_ a: HandlingAnswer) -> Obj {
    ["status": NSNumber(value: a.reply.status), "retryAfter": a.reply.retryAfterS.map { num($0) as Any } ?? NSNull(),
     "outcome": a.outcome.map { "\($0)" as Any } ?? NSNull(), "code": a.code as Any? ?? NSNull(),
     "persisted": a.persisted]
}

/// The vector's deliveries advanced one act per step (tests/vectors/DECISIONS.md, "Delivery
/// handling"). `open` makes a delivery's handling; `store` answers its store acts (the async
/// path; nil: the handling's Claims answers them inside `step`). A claim step is written with its
/// outcome or error code (`lastStep()`); the input's `transaction` opens each handling in a
/// transaction, whose `commit` act is answered with the delivery's `commit`.
func handleSteps(_ i: Obj, store: AsyncClaimStore?,
                 open: (Receiver, Data, String?, String, Bool) throws -> DeliveryHandling) async throws -> Obj {
    let secret = str(i, "secret")!
    let transaction = (i["transaction"] as? Bool) ?? false
    let receiver = try Receiver(secret: secret)
    let deliveries = i["deliveries"] as! [String: Obj]
    var handlings: [String: DeliveryHandling] = [:]
    var acts: [String] = []
    var answers: Obj = [:]
    for step in i["steps"] as! [Obj] {
        let name = str(step, "go")!
        let at = (step["at"] as! NSNumber).uint64Value
        guard let d = deliveries[name] else { throw RunnerError("no delivery \(name)") }
        let h: DeliveryHandling
        if let existing = handlings[name] {
            h = existing
        } else {
            let body = Data(jsonText(d["body"]!).utf8)
            let signature: String?
            switch str(d, "signature") {
            case nil, "valid": signature = try sign(secret: secret, body: body)
            case "missing": signature = nil
            case let other: signature = other
            }
            h = try open(receiver, body, signature, str(d, "token") ?? name, transaction)
            handlings[name] = h
        }
        func runStep() async throws -> String {
            var next = try h.step(atMs: at)
            var rounds = 0
            loop: while true {
                switch next {
                case let .load(id, time):
                    guard let s = store else { throw RunnerError("a store act over Claims") }
                    next = try h.loaded(entry: try await s.load(id: id, time: time))
                case let .compareAndSet(id, expected, new, time):
                    guard let s = store else { throw RunnerError("a store act over Claims") }
                    next = try h.swapped(applied: try await s.compareAndSet(id: id, expected: expected, new: new, time: time))
                default:
                    break loop
                }
                rounds += 1
                if rounds > 64 { throw RunnerError("a step's store calls did not end") }
            }
            guard let last = h.lastStep() else { throw RunnerError("a step that left no result") }
            return "\(last.step):" + (last.code ?? last.outcome.map { "\($0)" } ?? "nil")
        }
        let act: String
        switch h.next() {
        case let .answer(a):
            answers[name] = answerObj(a)
            act = "answer:\(a.reply.status)"
        case .persist:
            let ok = (str(d, "persist") ?? "ok") == "ok"
            _ = try h.persisted(ok: ok)
            act = "persist:" + (ok ? "ok" : "fail")
        case .commit:
            let ok = (str(d, "commit") ?? "ok") == "ok"
            _ = try h.committed(ok: ok)
            act = "commit:" + (ok ? "ok" : "fail")
        case .claim, .complete, .release: act = try await runStep()
        case let other: throw RunnerError("an act between steps: \(other)")
        }
        acts.append("\(name):\(act)")
    }
    return ["acts": acts, "answers": answers]
}

struct RunnerError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

// Twice: the built-in Claims (in memory), and the async path over a store written here
// (DeliveryHandling.withStoreSteps, each store call suspending); both must agree.
func handleOp(_ i: Obj) throws -> Obj {
    let lease = (i["leaseMs"] as! NSNumber).uint64Value
    let window = (i["windowMs"] as? NSNumber)?.uint64Value ?? UInt64.max
    let input = InputBox(i)
    let builtin: Obj = try waitFor {
        let claims = Claims(leaseMs: lease, windowMs: window)
        return try await handleSteps(input.value, store: nil) { rx, body, sig, token, tx in
            DeliveryHandling(receiver: rx, claims: claims, body: body, signature: sig, token: token, inTransaction: tx)
        }
    }
    let own: Obj = try waitFor {
        try await handleSteps(input.value, store: AsyncDictStore()) { rx, body, sig, token, tx in
            DeliveryHandling.withStoreSteps(receiver: rx, body: body, signature: sig, token: token, leaseMs: lease, windowMs: window, inTransaction: tx)
        }
    }
    if jsonText(builtin) != jsonText(own) {
        return ["error": "the built-in store gave \(jsonText(builtin)), the runner's own store \(jsonText(own))"]
    }
    return builtin
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
    "account.check": accountCheckOp,
    "beneficiary.form": formOp,
    "beneficiary.normalize": normalizeOp,
    "pagination.query": queryOp,
    "pagination.info": infoOp,
    "pagination.walk": walkOp,
    "delivery.claims": claimsOp,
    "delivery.handle": handleOp,
    "api.error": apiErrorOp,
    "events.catch_up": catchUpOp,
]

/// How the values of a key compare: (v4) `issues` paired one to one with the actual issues
/// each expected element matches by its keys, `fields`/`events` in order element by element
/// (each matched by its keys), `rejected` as a multiset, `drifts` as a set.
enum Compare { case exact, paired, inOrder, multiset, set }

func compareOf(_ key: String) -> Compare {
    switch key {
    case "issues": return .paired
    case "fields", "events": return .inOrder
    case "rejected": return .multiset
    case "drifts": return .set
    default: return .exact
    }
}

/// An expected key's value against the actual one: (v4) an expected null matches null or absent.
func keyEqual(_ want: Any, _ got: Any?, _ how: Compare = .exact) -> Bool {
    guard let got = got else { return want is NSNull }
    return equal(want, got, how)
}

/// (v4) An expected element matches an actual one when every key it has equals the actual's.
func elementMatches(_ want: Any, _ got: Any) -> Bool {
    guard let w = want as? Obj, let g = got as? Obj else { return equal(want, got) }
    return w.allSatisfy { keyEqual($0.value, g[$0.key], compareOf($0.key)) }
}

/// The expected elements paired one to one with actual ones they match (every pairing tried:
/// the lists are short).
func paired(_ want: [Any], _ got: [Any]) -> Bool {
    var used = [Bool](repeating: false, count: got.count)
    func pair(_ k: Int) -> Bool {
        if k == want.count { return true }
        for (j, cand) in got.enumerated() where !used[j] && elementMatches(want[k], cand) {
            used[j] = true
            if pair(k + 1) { return true }
            used[j] = false
        }
        return false
    }
    return want.count == got.count && pair(0)
}

// Deep equality of an expected value and an actual one: numbers by value, booleans apart from
// numbers; arrays per `how`; (v4) an expected null matches an absent key, so an actual object's
// keys beyond the expected ones must be null.
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
                && y.allSatisfy { item in x.contains { equal($0, item) } }
        case .exact:
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case .paired:
            return paired(x, y)
        case .inOrder:
            return x.count == y.count && zip(x, y).allSatisfy { elementMatches($0, $1) }
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
        return x.allSatisfy { keyEqual($0.value, y[$0.key], compareOf($0.key)) }
            && y.allSatisfy { x[$0.key] != nil || $0.value is NSNull }
    }
    return false
}

func show(_ v: Any) -> String { jsonText(v) }

func mismatch(_ expect: Obj, _ actual: Obj) -> String? {
    for key in expect.keys.sorted() {
        let want = expect[key]!
        guard let got = actual[key] else {
            if want is NSNull { continue }
            return "`\(key)` missing (want \(show(want)); got \(show(actual)))"
        }
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
