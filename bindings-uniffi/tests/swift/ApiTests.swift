// The Swift binding's own API tests (run by bindings-uniffi/test.sh): one secret is the common
// case and is never split; a rotation takes a named list; pagination errors carry their field.
// Issue 12: in Python a string secret was read as one secret per character. test.sh puts the
// swift.md snippet, wrapped as `func readmeSnippet()`, at the README-SNIPPET line. HMAC is computed
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
    for padded in [" " + SECRET, SECRET + "\n"] {
        check("padded secret is another key", codeOf { try verify(secret: padded, body: BODY, signature: good) } == "SIGNATURE_MISMATCH")
    }
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
    do { try readmeSnippet(); passed += 1 } catch { failed += 1; print("FAIL the swift.md snippet threw \(error)") }
    print("swift api: \(passed) passed, \(failed) failed")
}

// README-SNIPPET

do { try main() } catch { failed += 1; print("FAIL threw \(error)") }
exit(failed > 0 ? 1 : 0)
