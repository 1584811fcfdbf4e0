// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
@testable import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// An input reported to a sensor session whose evaluation already ended is not the ended
/// evaluation's to consume: the session refuses it and the sensor keeps it for the next one
/// (commit def291d, the 16-client stall of `make bench`).
@Suite("An input after its evaluation ended is kept for the next", .timeLimit(.minutes(1)))
struct InputAfterTheEvaluationEndedTests {
    typealias H = EngineHarness
    let bio = LAPolicy.deviceOwnerAuthenticationWithBiometrics
    static let finger = "right-index-finger"

    /// A context of Alice's with a failure counted and saved: her next match clears it, so the
    /// match has a ledger write of its own.
    func ready() async throws -> (EngineHarness, ContextID, RunningEvaluationHandle) {
        let h = try EngineHarness()
        try await h.setUp(fingers: [Self.finger])
        let context = try await h.context()
        let evaluation = await h.begin(bio, on: context)
        try await h.fingerprint.touch("left-thumb")
        #expect(h.store.ledger(of: H.alice.uid)?.biometryFailures == 1)
        return (h, context, evaluation)
    }

    /// Through the entry points: the touch waiting behind the match's save resumes only after the
    /// job that ended the evaluation has also disarmed its sensor, so the session refuses it as no
    /// longer armed, and the next evaluation gets it.
    @Test func aTouchBehindAMatchWhoseWriteIsHeldGoesToTheNextEvaluation() async throws {
        let (h, _, evaluation) = try await ready()
        h.store.holdLedgerWrites()
        let match = Task { try await h.fingerprint.touch(Self.finger) }
        #expect(await eventually { h.store.heldLedgerWrites == 1 }, "the match's write is held")
        let second = Task { try await h.fingerprint.touch(Self.finger) }
        #expect(await eventually { await h.engine.sensors.waiting(on: .fingerprint) == 1 }, "the second touch waits behind the save")

        h.store.releaseLedgerWrites()
        try await match.value
        #expect(try await evaluation.result.get() == .biometricMatch(.fingerprint))
        try await second.value
        try #require(h.queue.pending == 1, "the second touch is kept, not spent on the ended evaluation")

        // A new context: the ended evaluation's own would succeed at once (its earlier success).
        let next = await h.begin(bio, on: try await h.context())
        #expect(try await next.result.get() == .biometricMatch(.fingerprint))
        #expect(h.queue.pending == 0)
    }

    /// The state the guard covers, made directly: the evaluation ended by a match and its sensor is
    /// still armed (its disarm comes with the next settle). A touch then must not be consumed.
    @Test func aTouchForAnArmedSessionWhoseEvaluationEndedIsRefusedAndKept() async throws {
        let (h, context, evaluation) = try await ready()
        #expect(await h.engine.endMatchedBeforeDisarm(context), "the sensor is still armed for the ended evaluation")
        #expect(try await evaluation.result.get() == .biometricMatch(.fingerprint))

        try await h.fingerprint.touch(Self.finger)
        try #require(h.queue.pending == 1, "refused by the ended evaluation's session, the touch waits for the next")
        #expect(h.store.ledger(of: H.alice.uid)?.biometryFailures == 1, "nothing counted for the ended evaluation")

        await h.engine.settleForTest()
        // A new context: the ended evaluation's own would succeed at once (its earlier success).
        let next = await h.begin(bio, on: try await h.context())
        #expect(try await next.result.get() == .biometricMatch(.fingerprint))
        #expect(h.queue.pending == 0)
    }
}

extension PolicyEngine {
    /// Ends the context's evaluation with a fingerprint match the way ``finish(_:_:)`` does, but
    /// without the ``settle()`` that disarms its sensor; true when the sensor is still armed for it.
    fileprivate func endMatchedBeforeDisarm(_ id: ContextID) -> Bool {
        finish(id, .success(.biometricMatch(.fingerprint)))
        return sensors.armed(.fingerprint)?.context == id && contexts[id]?.evaluation == nil
    }

    fileprivate func settleForTest() {
        settle()
    }
}
