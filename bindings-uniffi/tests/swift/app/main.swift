// An app that depends on the Xborder package by path, as a user's does: swift/test.sh writes the
// manifest of swift.md (its ```swift Package.swift block) beside this file, builds it with
// `swift build` against the package `--assemble-only` wrote (found through its xborder_ffi.pc) and
// runs it. It validates drafts against the server's documents and receives deliveries with one
// Receiver, persisting each event it processes before committing it.
//   App RULES.json BANKS.json COUNTRY ITEM...   (the secret in WEBHOOK_SECRET)
//   ITEM: draft=FILE | delivery=FILE,SIGNATURE   (SIGNATURE `-`: no X-Webhook-Signature header)
// Prints per draft `draft FILE: valid BOOL` and an `  PATH CODE` line per issue; per delivery
// `delivery N: STATUS ACTION ID-OR-CODE` (STATUS is decision.reply's, with `retry-after S` when it
// has one); then `persisted: IDS`. A usage error or a thrown error exits 2.
import Foundation
import Xborder

func fail(_ why: String) -> Never {
    FileHandle.standardError.write(Data("App: \(why)\n".utf8))
    exit(2)
}

let args = Array(CommandLine.arguments.dropFirst())
guard args.count >= 4 else { fail("usage: App RULES.json BANKS.json COUNTRY (draft=FILE | delivery=FILE,SIGNATURE)...") }
guard let secret = ProcessInfo.processInfo.environment["WEBHOOK_SECRET"] else { fail("WEBHOOK_SECRET is not set") }

func read(_ path: String) -> Data {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    return data
}
func text(_ path: String) -> String { String(decoding: read(path), as: UTF8.self) }

do {
    let validator = BeneficiaryValidator(rulesJson: text(args[0]), banksCountry: args[2], banksJson: text(args[1]))
    let receiver = try Receiver(secret: secret)
    var persisted: [String] = []
    var deliveries = 0
    for item in args[3...] {
        if item.hasPrefix("draft=") {
            let file = String(item.dropFirst("draft=".count))
            let result = try validator.validate(draftJson: text(file))
            print("draft \((file as NSString).lastPathComponent): valid \(result.valid)")
            for issue in result.issues { print("  \(issue.path) \(issue.code)") }
        } else if item.hasPrefix("delivery=") {
            let parts = item.dropFirst("delivery=".count).split(separator: ",", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { fail("delivery=FILE,SIGNATURE, not \(item)") }
            deliveries += 1
            let decision = receiver.receive(body: read(parts[0]), signature: parts[1] == "-" ? nil : parts[1])
            if decision.action == .process, let env = decision.envelope {
                persisted.append(env.id)          // the app's store; then the id is committed
                try receiver.commit(id: env.id)
            }
            var line = "delivery \(deliveries): \(decision.reply.status) \(decision.action) "
            line += decision.errorCode ?? decision.envelope?.id ?? "-"
            if let s = decision.reply.retryAfterS { line += " retry-after \(s)" }
            print(line)
        } else {
            fail("an item is draft=FILE or delivery=FILE,SIGNATURE, not \(item)")
        }
    }
    print("persisted: \(persisted.joined(separator: " "))")
} catch let e as XborderError {
    fail("\(e.errorCode()): \(e)")
} catch {
    fail("\(error)")
}
