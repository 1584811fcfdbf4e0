// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthBackends
import LocalAuthCore
import LocalAuthSystem
import LocalAuthTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real engine over state files: what a restarted daemon sees.
@Suite("Engine state on disk", .timeLimit(.minutes(1)))
final class DiskPersistenceTests {
    static let alice = Caller(client: ClientID(":1.10"), uid: 1000)
    static let root = Caller(client: ClientID(":1.1"), uid: 0)
    static let passcode = "4711-secret"
    let bio = LAPolicy.deviceOwnerAuthenticationWithBiometrics

    let temporary: TemporaryDirectory
    var state: String { "\(temporary.path)/state" }
    let clock = FakeClock()

    init() throws { temporary = try TemporaryDirectory() }
    deinit { temporary.remove() }

    /// One daemon run: the engine with both simulators over a new `FileStateStore` on `state`.
    struct Daemon {
        let engine: PolicyEngine
        let store: FileStateStore
        let fingerprint: FingerprintSimulator
        let audit = RecordingAuditSink()

        init(state: String, clock: FakeClock, hasher: any PasscodeHasher = FakePasscodeHasher()) throws {
            store = try FileStateStore(directory: state)
            let queue = SimulatorEventQueue(timeToLive: 10, clock: clock)
            fingerprint = FingerprintSimulator(queue: queue)
            engine = try PolicyEngine(
                configuration: Configuration(), backends: [fingerprint, FaceSimulator(queue: queue)],
                environment: .init(clock: clock, store: store, passcodeHasher: hasher,
                                   domainStateHasher: try KeyedDomainStateHasher(installationSecret: store.installationSecret()),
                                   audit: audit))
        }

        /// Runs one evaluation of `policy` while `drive` presents inputs (queued until the sensor is armed).
        func evaluate(_ policy: LAPolicy, drive: @Sendable () async throws -> Void) async throws -> LAErrorCode? {
            let engine = self.engine
            let context = try await engine.createContext(for: alice, options: ContextOptions())
            let evaluation = Task { () -> LAErrorCode? in
                do throws(LocalAuthError) {
                    _ = try await engine.evaluatePolicy(policy, reason: "open the vault", context: context, caller: alice.client)
                    return nil
                } catch {
                    return error.code
                }
            }
            try await drive()
            return await evaluation.value
        }

        func canEvaluate(_ policy: LAPolicy) async throws -> LAErrorCode? {
            let context = try await engine.createContext(for: alice, options: ContextOptions())
            do throws(LocalAuthError) {
                try await engine.canEvaluatePolicy(policy, context: context, caller: alice.client)
                return nil
            } catch {
                return error.code
            }
        }
    }

    func setUpAlice(_ daemon: Daemon) async throws {
        try await daemon.engine.setPasscode(current: Passcode(""), new: Passcode(Self.passcode), caller: Self.alice)
        try await daemon.engine.enroll(.fingerprint, label: "right-index-finger", passcode: Passcode(Self.passcode), caller: Self.alice)
    }

    @Test func aBiometricLockoutSurvivesARestart() async throws {
        let before = try Daemon(state: state, clock: clock)
        try await setUpAlice(before)
        let fingerprint = before.fingerprint
        #expect(try await before.evaluate(bio) { for _ in 0..<3 { try await fingerprint.touch("left-thumb") } } == .authenticationFailed)
        #expect(try await before.evaluate(bio) { for _ in 0..<2 { try await fingerprint.touch("left-thumb") } } == .biometryLockout)
        #expect(await before.engine.userState(of: Self.alice.uid).biometryLockedOut)

        let after = try Daemon(state: state, clock: clock)  // a restarted daemon
        let restored = await after.engine.userState(of: Self.alice.uid)
        #expect(restored.biometryLockedOut && restored.biometryFailures == 5)
        #expect(restored.passcodeSet && restored.enrollments == [Enrollment(modality: .fingerprint, label: "right-index-finger")])
        #expect(try await after.canEvaluate(bio) == .biometryLockout)
        #expect(try await after.canEvaluate(.deviceOwnerAuthentication) == nil)
    }

    @Test func aGarbageLedgerLocksTheUserUntilRootResetsIt() async throws {
        let setup = try Daemon(state: state, clock: clock)
        try await setUpAlice(setup)
        try writeFile("\(state)/users/1000/ledger.json", Array("}{ not a ledger".utf8))

        let daemon = try Daemon(state: state, clock: clock)
        #expect(try await daemon.canEvaluate(bio) == .biometryLockout)
        #expect(try await daemon.canEvaluate(.deviceOwnerAuthentication) == .passcodeLockout)
        #expect(daemon.audit.all.contains { $0.event == .stateError && $0.user == Self.alice.uid })
        await #expect(throws: LocalAuthError.self) { try await daemon.engine.resetLockout(user: Self.alice.uid, caller: Self.alice) }
        #expect(try await daemon.canEvaluate(bio) == .biometryLockout, "only root may reset")

        try await daemon.engine.resetLockout(user: Self.alice.uid, caller: Self.root)
        #expect(try await daemon.canEvaluate(bio) == nil)
        #expect(try daemon.store.loadLedger(user: Self.alice.uid) == UserLedger(), "the reset ledger is on disk")
        #expect(try await Daemon(state: state, clock: clock).canEvaluate(bio) == nil, "and survives a restart")
    }

    @Test func stateReachedThroughASymbolicLinkLocksTheUser() async throws {
        let before = try Daemon(state: state, clock: clock)
        try await setUpAlice(before)
        let fingerprint = before.fingerprint
        #expect(try await before.evaluate(bio) { for _ in 0..<3 { try await fingerprint.touch("left-thumb") } } == .authenticationFailed)
        #expect(try await before.evaluate(bio) { for _ in 0..<2 { try await fingerprint.touch("left-thumb") } } == .biometryLockout)
        // Alice's files moved away and her directory replaced by a link to a fresh one of her own.
        let fresh = "\(temporary.path)/fresh"
        #expect(mkdir(fresh, 0o700) == 0)
        #expect(rename("\(state)/users/1000", "\(temporary.path)/moved") == 0)
        #expect(symlink(fresh, "\(state)/users/1000") == 0)

        let after = try Daemon(state: state, clock: clock)
        #expect(try await after.canEvaluate(bio) == .biometryLockout, "fails closed, not a fresh user")
        #expect(try await after.canEvaluate(.deviceOwnerAuthentication) == .passcodeLockout)
        #expect(after.audit.all.contains { $0.event == .stateError && $0.user == Self.alice.uid })
    }

    @Test func noPasscodeOnDisk() async throws {
        let daemon = try Daemon(state: state, clock: clock, hasher: try Argon2idPasscodeHasher())
        try await setUpAlice(daemon)  // set (hash) and enroll (verify, ledger saved)
        let profile = try #require(try daemon.store.loadProfile(user: Self.alice.uid))
        #expect(profile.passcodeHash?.hasPrefix("$argon2id$") == true)
        let files = temporary.files
        #expect(files == ["state/installation-secret", "state/users/1000/ledger.json", "state/users/1000/profile.json"])
        for file in files {
            #expect(!(try readFile("\(temporary.path)/\(file)")).contains(bytes: Array(Self.passcode.utf8)), "\(file)")
        }
        #expect(!daemon.audit.all.contains { $0.description.contains(Self.passcode) })
    }
}
