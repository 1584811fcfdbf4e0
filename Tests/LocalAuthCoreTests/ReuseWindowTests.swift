import LocalAuthCore
import LocalAuthTestSupport
import Testing

@Suite("Reuse window (allowableReuseDuration)", .timeLimit(.minutes(1)))
struct ReuseWindowTests {
    typealias H = EngineHarness
    let bio = LAPolicy.deviceOwnerAuthenticationWithBiometrics

    /// Alice's harness after an unlock match by root's unlock context at the harness clock's start.
    func unlocked() async throws -> EngineHarness {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        let unlock = try await h.context(H.root) { $0.user = H.alice.uid; $0.isUnlockContext = true }
        let evaluation = await h.begin(bio, on: unlock, by: H.root)
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await evaluation.result.get() == .biometricMatch(.fingerprint))
        return h
    }

    func evaluate(_ h: EngineHarness, reuse: Double, policy: LAPolicy = .deviceOwnerAuthenticationWithBiometrics) async throws -> Result<EvaluationSuccess, LocalAuthError> {
        let context = try await h.context { options in
            options.interactionNotAllowed = true  // only the reuse window can satisfy it
            try? options.setAllowableReuseDuration(reuse)
        }
        return await h.begin(policy, on: context).result
    }

    @Test("inside the window: success without a prompt", arguments: [0.0, 30, 60])
    func insideTheWindow(elapsed: Double) async throws {
        let h = try await unlocked()
        h.clock.advance(by: elapsed)
        #expect(try await evaluate(h, reuse: 60).get() == .reuse)
    }

    @Test func justOutsideTheWindowNeedsInteraction() async throws {
        let h = try await unlocked()
        h.clock.advance(by: 60.001)
        #expect(try await evaluate(h, reuse: 60) == .failure(LocalAuthError(.notInteractive)))
    }

    @Test func theWindowIsClampedToThreeHundredSeconds() async throws {
        let h = try await unlocked()
        h.clock.advance(by: 300)
        #expect(try await evaluate(h, reuse: 10_000).get() == .reuse)
        h.clock.advance(by: 1)
        #expect(try await evaluate(h, reuse: 10_000) == .failure(LocalAuthError(.notInteractive)))
    }

    @Test func zeroDurationNeverReuses() async throws {
        let h = try await unlocked()
        #expect(try await evaluate(h, reuse: 0) == .failure(LocalAuthError(.notInteractive)))
    }

    @Test func appliesToPoliciesOneTwoAndFour() async throws {
        let h = try await unlocked()
        for policy in [LAPolicy.deviceOwnerAuthenticationWithBiometrics, .deviceOwnerAuthentication, .deviceOwnerAuthenticationWithBiometricsOrCompanion] {
            #expect(try await evaluate(h, reuse: 60, policy: policy).get() == .reuse)
        }
    }

    @Test func matchesInsideOrdinaryAppEvaluationsNeverCount() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        let evaluation = await h.begin(bio, on: try await h.context())
        try await h.fingerprint.touch("right-index-finger")
        _ = try await evaluation.result.get()
        #expect(try await evaluate(h, reuse: 300) == .failure(LocalAuthError(.notInteractive)))
    }
}
