// Delivery handling, the one call (issue 33): `handleDelivery` drives uniffi's `DeliveryHandling`
// (core's handling) from the receiver's decision to the answer, over `Claims` (in memory or a
// sync `ClaimStore`) or over the host's own async store (`AsyncClaimStore`). Hand-written, compiled
// into the module `Xborder` beside the generated Xborder.swift. Core decides the order and every
// reply: this file converts and drives.
import Foundation

/// A claims store the host awaits (an async Redis or SQL client): entry texts kept with an
/// atomic compare-and-set, never read. Whatever either function throws makes the claim step
/// fail with `STORE_UNAVAILABLE` (a `CancellationError` cancels the handling instead).
public protocol AsyncClaimStore {
    /// The entry text of `id`, nil when it has none (in a store that keeps expiry: or only one
    /// that expired at `time.nowMs`).
    func load(id: String, time: StoreTime) async throws -> String?
    /// Atomically: when the entry of `id` is `expected` (nil: none, or only one expired at
    /// `time.nowMs`), make it `new` (nil: remove it), which the store may drop after
    /// `time.ttlMs` milliseconds, at `time.expiresAtMs` (nil: keep it), and answer true;
    /// otherwise change nothing and answer false. The times are core's, already clamped: write
    /// and compare them as given, never read an entry's text for a time.
    func compareAndSet(id: String, expected: String?, new: String?, time: StoreTime) async throws -> Bool
}

/// What to answer the provider for one delivery, and why: core's answer, with the error the
/// host's persist threw (never swallowed: log it, or rethrow it after answering).
public struct DeliveryAnswer: CustomStringConvertible {
    /// The HTTP status to answer with (200, 400, 413, 500, 503).
    public let status: UInt16
    /// The `Retry-After` to send, in seconds (nil: none).
    public let retryAfterS: UInt64?
    /// The last claim step's outcome (nil: nothing was claimed, the decision was not process).
    public let outcome: ClaimOutcome?
    /// Why it is not 2xx, or what went wrong on the way: the decision's or a claim step's error
    /// code (`SIGNATURE_MISMATCH`, `STORE_UNAVAILABLE`, ...), or `PERSIST_FAILED`; nil when none.
    public let code: String?
    /// Whether the host persisted the event.
    public let persisted: Bool
    /// What the persist threw (the answer is then 500 `PERSIST_FAILED`, the claim released for
    /// the provider's retry); nil when it did not throw.
    public let persistError: Error?

    /// The answer core gave, with the persist's error.
    public init(_ answer: HandlingAnswer, persistError: Error? = nil) {
        status = answer.reply.status
        retryAfterS = answer.reply.retryAfterS
        outcome = answer.outcome
        code = answer.code
        persisted = answer.persisted
        self.persistError = persistError
    }

    /// `["Retry-After": "30"]`, or empty: the headers to send with `status`.
    public var headers: [String: String] {
        retryAfterS.map { ["Retry-After": String($0)] } ?? [:]
    }

    /// `status`, `outcome`, `code`, `persisted` (and the persist's error), for logs.
    public var description: String {
        "DeliveryAnswer(status: \(status), retryAfterS: \(retryAfterS.map(String.init) ?? "nil"), "
            + "outcome: \(outcome.map { "\($0)" } ?? "nil"), code: \(code ?? "nil"), persisted: \(persisted)"
            + (persistError.map { ", persistError: \($0)" } ?? "") + ")"
    }
}

/// The most acts one handling takes: core ends every handling well within it (a claim step's
/// store calls are bounded by its conflict limit).
private let maxActs = 256

/// Milliseconds since the epoch: the default clock.
@usableFromInline
func currentTimeMs() -> UInt64 {
    UInt64(max(0, (Date().timeIntervalSince1970 * 1000).rounded(.down)))
}

/// One delivery, start to end: `receiver` verifies and decodes the raw `body` with its
/// `X-Webhook-Signature` header `signature` (nil when absent); a live event is claimed in
/// `claims` (in memory, or a sync `ClaimStore`) by this request's `token`, given to `persist`,
/// then completed, or released when `persist` threw. Answer `status` with `headers`: every status
/// and `Retry-After` is core's (503 while another request holds the event). `clock` gives the
/// time of each claim step in milliseconds since the epoch. What `persist` threw is in
/// `persistError`; a `CancellationError` from it is rethrown (the claim then stays held until its
/// lease runs out). Throws `XborderError` only for this API's misuse (`INVALID_STEP`).
public func handleDelivery(
    receiver: Receiver, claims: Claims, body: Data, signature: String?,
    token: String = UUID().uuidString, clock: () -> UInt64 = currentTimeMs,
    persist: (Envelope) async throws -> Void
) async throws -> DeliveryAnswer {
    let h = DeliveryHandling(receiver: receiver, claims: claims, body: body, signature: signature, token: token)
    return try await drive(h, store: nil, clock: clock, persist: persist)
}

/// `handleDelivery` over the host's own async `store`: each claim step's store calls are
/// awaited; `leaseMs` and `windowMs` as for `Claims` (30 s; nil: 7 days). A `CancellationError`
/// from the store or `persist` is rethrown.
public func handleDelivery(
    receiver: Receiver, store: AsyncClaimStore, body: Data, signature: String?,
    token: String = UUID().uuidString, clock: () -> UInt64 = currentTimeMs,
    leaseMs: UInt64 = 30000, windowMs: UInt64? = nil,
    persist: (Envelope) async throws -> Void
) async throws -> DeliveryAnswer {
    let h = DeliveryHandling.withStoreSteps(receiver: receiver, body: body, signature: signature, token: token,
                                            leaseMs: leaseMs, windowMs: windowMs)
    return try await drive(h, store: store, clock: clock, persist: persist)
}

/// One store call of a step: its answer given to core by `then`, or, when it threw, the
/// failure (`storeFailed` with the error's description; a cancellation is rethrown).
private func storeCall<T>(_ h: DeliveryHandling, _ call: () async throws -> T,
                          then: (T) throws -> HandlingAct) async throws -> HandlingAct {
    let answer: T
    do {
        answer = try await call()
    } catch let e as CancellationError {
        throw e
    } catch {
        return try h.storeFailed(message: String(describing: error))
    }
    return try then(answer)
}

/// The one loop: does what `h.next()` says until the answer. `store` answers the `load` and
/// `compareAndSet` acts (nil over `Claims`, which answers them inside `step`).
private func drive(_ h: DeliveryHandling, store: AsyncClaimStore?, clock: () -> UInt64,
                   persist: (Envelope) async throws -> Void) async throws -> DeliveryAnswer {
    var failure: Error?
    var act = h.next()
    for _ in 0..<maxActs {
        switch act {
        case .claim, .complete, .release:
            act = try h.step(atMs: clock())
        case let .load(id, time):
            act = try await storeCall(h, {
                guard let s = store else { throw XborderHandlingNoStore() }
                return try await s.load(id: id, time: time)
            }, then: { try h.loaded(entry: $0) })
        case let .compareAndSet(id, expected, new, time):
            act = try await storeCall(h, {
                guard let s = store else { throw XborderHandlingNoStore() }
                return try await s.compareAndSet(id: id, expected: expected, new: new, time: time)
            }, then: { try h.swapped(applied: $0) })
        case let .persist(envelope):
            var ok = true
            do {
                try await persist(envelope)
            } catch let e as CancellationError {
                throw e
            } catch {
                failure = error
                ok = false
            }
            act = try h.persisted(ok: ok)
        case .commit:
            // The one call never opens a handling in a transaction: a transaction is driven act
            // by act (`DeliveryHandling(..., inTransaction: true)`), where the host commits.
            throw XborderError.Claim(code: "INVALID_STEP", field: nil,
                                     detail: "a commit act: drive a handling in a transaction act by act (DeliveryHandling)")
        case let .answer(answer):
            return DeliveryAnswer(answer, persistError: failure)
        }
    }
    throw XborderError.Claim(code: "INVALID_STEP", field: nil,
                             detail: "the handling did not end within \(maxActs) acts")
}

/// A store act over `Claims` (which answers them itself): never expected.
private struct XborderHandlingNoStore: Error, CustomStringConvertible {
    var description: String { "no store to answer the store call" }
}
