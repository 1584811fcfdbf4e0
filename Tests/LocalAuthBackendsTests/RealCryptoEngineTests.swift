// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthBackends
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// The policy core with the real Argon2id and keyed domain-state hash (memory store, fake clock).
@Suite("Engine with the real hashers", .timeLimit(.minutes(1)))
struct RealCryptoEngineTests {
    static let alice = Caller(client: ClientID(":1.10"), uid: 1000)
    static let passcode = "4711-secret"

    @Test func devicePolicySucceedsWithTheRightPasscodeAndOnlyTheHashIsStored() async throws {
        let clock = FakeClock()
        let store = MemoryStateStore()
        let audit = RecordingAuditSink()
        let queue = SimulatorEventQueue(timeToLive: 10, clock: clock)
        let environment = PolicyEngine.Environment(
            clock: clock, store: store, passcodeHasher: try Argon2idPasscodeHasher(),
            domainStateHasher: try KeyedDomainStateHasher(installationSecret: [UInt8](repeating: 42, count: 32)),
            audit: audit, observer: RecordingObserver())
        var configuration = Configuration()
        configuration.appPasscodeEntry = true  // the app submits the passcode here, as a headless rig does
        let engine = try PolicyEngine(configuration: configuration,
                                      backends: [FingerprintSimulator(queue: queue), FaceSimulator(queue: queue)],
                                      environment: environment)
        let alice = Self.alice

        try await engine.setPasscode(current: Passcode(""), new: Passcode(Self.passcode), caller: alice)
        let context = try await engine.createContext(for: alice, options: ContextOptions())
        try await engine.canEvaluatePolicy(.deviceOwnerAuthentication, context: context, caller: alice.client)
        let evaluation = Task { () -> Result<EvaluationSuccess, LocalAuthError> in
            do throws(LocalAuthError) {
                return .success(try await engine.evaluatePolicy(.deviceOwnerAuthentication, reason: "open the vault", context: context, caller: alice.client))
            } catch {
                return .failure(error)
            }
        }
        // Nothing is enrolled, so the evaluation waits for the passcode at once; wait (bounded) until it does.
        var state = ContextState.idle
        for _ in 0..<100_000 where state != .passcode {
            state = try await engine.snapshot(of: context, caller: alice.client).state
            await Task.yield()
        }
        try #require(state == .passcode)

        await #expect(throws: LocalAuthError(.authenticationFailed, "Wrong passcode.")) {
            try await engine.submitPasscode(Passcode("4711-secreT"), context: context, caller: alice.client)
        }
        #expect(await engine.userState(of: alice.uid).passcodeFailures == 1)
        try await engine.submitPasscode(Passcode(Self.passcode), context: context, caller: alice.client)
        #expect(try await evaluation.value.get() == .passcode)
        #expect(await engine.userState(of: alice.uid).passcodeFailures == 0)

        let stored = try #require(store.profile(of: alice.uid)?.passcodeHash)
        #expect(stored.hasPrefix("$argon2id$"))
        #expect(!stored.contains(Self.passcode))
        #expect(!audit.all.contains { $0.description.contains(Self.passcode) })
    }
}
