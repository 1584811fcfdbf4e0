// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthCore
import LocalAuthTestSupport
import Synchronization
import Testing

/// Another user acting as me (`su alice` run by bob, bob's screen locker asking for alice) counts
/// its failures in its own ledger inside mine: it locks only itself out of me, never me, and still
/// meets the same thresholds, so it cannot guess its way in either.
@Suite("Foreign applicants: no user can lock out another", .timeLimit(.minutes(1)))
struct ForeignApplicantTests {
    typealias H = EngineHarness
    let bio = LAPolicy.deviceOwnerAuthenticationWithBiometrics
    let owner = LAPolicy.deviceOwnerAuthentication
    static let carol: UInt32 = 1002

    /// A context that the PAM module opens in `su alice` run by `applicant`.
    func suContext(_ h: EngineHarness, applicant: UInt32 = H.bob.uid) async throws -> ContextID {
        try await h.context(H.root) {
            $0.user = H.alice.uid
            $0.isUnlockContext = true
            $0.applicant = applicant
        }
    }

    func ready(fingers: [String] = ["right-index-finger"], configuration: Configuration = Configuration()) async throws -> EngineHarness {
        let h = try EngineHarness(configuration: configuration)
        try await h.setUp(fingers: fingers)
        return h
    }

    @Test func anotherUserCannotLockMyBiometryButLocksItself() async throws {
        let h = try await ready()
        let first = await h.begin(bio, on: try await suContext(h), by: H.root)
        for _ in 1...3 { try await h.fingerprint.touch("left-thumb") }
        #expect(await first.errorCode == .authenticationFailed)
        let su = try await suContext(h)
        let second = await h.begin(bio, on: su, by: H.root)
        for _ in 1...2 { try await h.fingerprint.touch("left-thumb") }
        #expect(await second.errorCode == .biometryLockout, "bob locked himself out of alice")

        let saved = try #require(h.store.ledger(of: H.alice.uid))
        #expect(saved.biometryFailures == 0 && !saved.biometryLockedOut, "alice's own counts untouched")
        #expect(saved.applicants["\(H.bob.uid)"]?.biometryLockedOut == true, "bob's lock is saved")
        #expect(await !h.engine.userState(of: H.alice.uid).biometryLockedOut)

        // Bob still cannot try alice's biometry, even with her finger.
        await #expect(throws: LocalAuthError(.biometryLockout)) {
            try await h.engine.canEvaluatePolicy(bio, context: su, caller: H.root.client)
        }
        #expect(await h.begin(bio, on: try await suContext(h), by: H.root).errorCode == .biometryLockout)

        // Alice herself, and another applicant, are not locked.
        let mine = await h.begin(bio, on: try await h.context())
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await mine.result.get() == .biometricMatch(.fingerprint))
        let carols = try await suContext(h, applicant: Self.carol)
        try await h.engine.canEvaluatePolicy(bio, context: carols, caller: H.root.client)
        #expect(h.audit.all.contains { $0.event == .biometryLockout && $0.message.contains("uid \(H.bob.uid)") })
    }

    @Test func rootWithoutAnApplicantCountsAsTheUserThemself() async throws {
        let h = try await ready()
        let login = try await h.context(H.root) { $0.user = H.alice.uid; $0.isUnlockContext = true; $0.applicant = H.alice.uid }
        let evaluation = await h.begin(bio, on: login, by: H.root)
        try await h.fingerprint.touch("left-thumb")
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await evaluation.result.get() == .biometricMatch(.fingerprint))
        let console = try await h.context(H.root) { $0.user = H.alice.uid }
        _ = await h.begin(bio, on: console, by: H.root)
        try await h.fingerprint.touch("left-thumb")
        let saved = try #require(h.store.ledger(of: H.alice.uid))
        #expect(saved.biometryFailures == 1 && saved.applicants.isEmpty, "an applicant that is the user, or none, is the user")
    }

    @Test func anotherUserCannotLockMyPasscodeNorGuessIt() async throws {
        var configuration = Configuration()
        configuration.passcodeDelays = [0, 0, 60]
        configuration.passcodeMaxFailures = 4
        let h = try await ready(fingers: [], configuration: configuration)
        let su = try await suContext(h)
        let guessing = await h.begin(owner, on: su, by: H.root)
        for _ in 1...3 {
            await expect(.authenticationFailed) { try await h.engine.submitPasscode(Passcode("0000"), context: su, caller: H.root.client) }
        }
        // The third wrong one started bob's delay: even the right passcode is not checked now.
        await expect(.passcodeLockout) { try await h.engine.submitPasscode(Passcode(H.passcode), context: su, caller: H.root.client) }
        h.clock.advance(by: 61)
        await expect(.authenticationFailed) { try await h.engine.submitPasscode(Passcode("0000"), context: su, caller: H.root.client) }
        #expect(await guessing.errorCode == .passcodeLockout, "the fourth locked bob's passcode for good")
        let saved = try #require(h.store.ledger(of: H.alice.uid))
        #expect(saved.passcodeFailures == 0 && saved.passcodeDelay == nil && !saved.passcodeLockedOut)
        #expect(saved.applicants["\(H.bob.uid)"]?.passcodeLockedOut == true)

        // Bob cannot try again, right passcode or not.
        let again = try await suContext(h)
        await expect(.passcodeLockout) { try await h.engine.canEvaluatePolicy(owner, context: again, caller: H.root.client) }

        // Alice types hers at once, and so may carol, whose count is her own.
        let mine = try await h.context()
        let evaluation = await h.begin(owner, on: mine)
        try await h.engine.submitPasscode(Passcode(H.passcode), context: mine, caller: H.alice.client)
        #expect(try await evaluation.result.get() == .passcode)
        try await h.engine.canEvaluatePolicy(owner, context: try await suContext(h, applicant: Self.carol), caller: H.root.client)
        #expect(h.store.ledger(of: H.alice.uid)?.applicants["\(H.bob.uid)"]?.passcodeLockedOut == true,
                "alice's success does not free bob")
    }

    @Test func aForeignSuccessLeavesMyCountsAsTheyAre() async throws {
        let h = try await ready()
        let myContext = try await h.context()
        let mine = await h.begin(bio, on: myContext)
        for _ in 1...2 { try await h.fingerprint.touch("left-thumb") }
        try await h.engine.cancel(context: myContext, caller: H.alice.client)
        _ = await mine.result
        let su = try await suContext(h)
        let foreign = await h.begin(bio, on: su, by: H.root)
        try await h.fingerprint.touch("left-thumb")
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await foreign.result.get() == .biometricMatch(.fingerprint))
        let saved = try #require(h.store.ledger(of: H.alice.uid))
        #expect(saved.biometryFailures == 2, "bob's match does not reset alice's run of failures")
        #expect(saved.lastUnlockMatch == nil, "nor open alice's reuse window")
        #expect(saved.applicants.isEmpty, "bob's match cleared his own count")
    }

    @Test func onlyRootMayNameTheApplicant() async throws {
        let h = try await ready()
        do {
            _ = try await h.context(H.bob) { $0.applicant = H.alice.uid }
            Issue.record("bob named an applicant")
        } catch {
            #expect((error as? LocalAuthError)?.kind == .accessDenied)
        }
    }

    /// A caller allowed to act for other users (polkit) is its own applicant, whatever it says.
    @Test func aNonRootCallerActingForAnotherIsItsOwnApplicant() async throws {
        let h = try EngineHarness(authorizer: AllowingAuthorizer())
        try await h.setUp(fingers: ["right-index-finger"])
        let locker = try await h.context(H.bob) { $0.user = H.alice.uid }
        let evaluation = await h.begin(bio, on: locker, by: H.bob)
        try await h.fingerprint.touch("left-thumb")
        let saved = try #require(h.store.ledger(of: H.alice.uid))
        #expect(saved.biometryFailures == 0 && saved.applicants["\(H.bob.uid)"]?.biometryFailures == 1)
        try await h.engine.cancel(context: locker, caller: H.bob.client)
        _ = await evaluation.result
    }

    @Test func promptsToAnotherUserDoNotNameMyEnrollments() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"], faces: ["primary"])
        let su = try await suContext(h)
        let evaluation = await h.begin(bio, on: su, by: H.root)
        try await h.fingerprint.touch("left-thumb")
        try await h.engine.cancel(context: su, caller: H.root.client)
        _ = await evaluation.result
        let texts = h.observer.prompts.filter { $0.context == su }.map(\.prompt)
        #expect(texts.map(\.kind).contains(.noMatch))
        for prompt in texts {
            for word in ["finger", "Finger", "face", "Face", "screen"] {
                #expect(!prompt.message.contains(word), "\"\(prompt.message)\" names a sensor")
            }
            #expect(prompt.detail == nil)
        }
        let myContext = try await h.context()
        let mine = await h.begin(bio, on: myContext)
        try await h.engine.cancel(context: myContext, caller: H.alice.client)
        _ = await mine.result
        #expect(h.observer.prompts.contains { $0.owner == H.alice.client && $0.prompt.message.contains("fingerprint") },
                "the user's own prompts still say which sensor")
    }

    /// Expects `body` to fail with `code`.
    func expect(_ code: LAErrorCode, sourceLocation: SourceLocation = #_sourceLocation,
                _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("no \(code)", sourceLocation: sourceLocation)
        } catch {
            #expect((error as? LocalAuthError)?.code == code, "\(error)", sourceLocation: sourceLocation)
        }
    }

    final class AllowingAuthorizer: Authorizer {
        func authorize(_ action: PrivilegedAction, caller: Caller) async throws(LocalAuthError) {}
    }
}

/// The applicants inside a user's ledger: counted apart, bounded, read back from files of every age.
@Suite("UserLedger applicants")
struct UserLedgerApplicantTests {
    static let now = ClockReading(wall: UnixTime(1_800_000_000), uptime: BootTime(boot: "boot-a", seconds: 500))
    static let schedule = PasscodeDelaySchedule(delays: [0, 0, 60], maxFailures: 4)

    @Test func aLedgerWrittenBeforeApplicantsIsReadWithNone() throws {
        let old = #"{"biometryFailures":2,"biometryLockedOut":false,"passcodeFailures":1,"passcodeLockedOut":false}"#
        let ledger = try JSONDecoder().decode(UserLedger.self, from: Data(old.utf8))
        #expect(ledger.biometryFailures == 2 && ledger.passcodeFailures == 1 && ledger.applicants.isEmpty)
        var counted = ledger
        _ = counted.recordBiometricFailure(maxFailures: 5, by: 1001, at: Self.now.wall)
        let again = try JSONDecoder().decode(UserLedger.self, from: JSONEncoder().encode(counted))
        #expect(again == counted && again.applicants["1001"]?.biometryFailures == 1)
    }

    @Test func atMostSixtyFourApplicantsTheLeastRecentWithoutALockGoesFirst() throws {
        var ledger = UserLedger()
        for _ in 1...5 { _ = ledger.recordBiometricFailure(maxFailures: 5, by: 5000, at: UnixTime(1)) }
        for uid in UInt32(6000)..<6000 + UInt32(UserLedger.applicantsKept) {
            _ = ledger.recordBiometricFailure(maxFailures: 5, by: uid, at: UnixTime(Double(uid)))
        }
        #expect(ledger.applicants.count == UserLedger.applicantsKept)
        #expect(ledger.applicants["5000"]?.biometryLockedOut == true, "a locked applicant outlives unlocked ones")
        #expect(ledger.applicants["6000"] == nil, "the least recent unlocked one went")
        #expect(ledger.isBiometryLockedOut(for: 5000) && !ledger.isBiometryLockedOut(for: 6001) && !ledger.isBiometryLockedOut(for: nil))
    }

    @Test func myOwnLocksApplyToEveryApplicant() {
        var ledger = UserLedger()
        _ = ledger.recordBiometricFailure(maxFailures: 1)
        for _ in 1...4 { ledger.recordPasscodeFailure(at: Self.now, schedule: Self.schedule) }
        #expect(ledger.isBiometryLockedOut(for: 1001))
        #expect(ledger.passcodeRefusal(at: Self.now, for: 1001)?.code == .passcodeLockout)
    }

    @Test func applicantsThatCannotBeOursAreCorrupt() throws {
        var ledger = UserLedger()
        ledger.applicants["bob"] = ApplicantLedger(lastCounted: UnixTime(1))
        #expect(throws: StateStoreError.self) { try ledger.validated(at: Self.now, schedule: Self.schedule) }
        ledger.applicants = ["1001": ApplicantLedger(lastCounted: UnixTime(1))]
        ledger.applicants["1001"]?.passcodeFailures = -1
        #expect(throws: StateStoreError.self) { try ledger.validated(at: Self.now, schedule: Self.schedule) }
        ledger.applicants = Dictionary(uniqueKeysWithValues: (0...UserLedger.applicantsKept).map { ("\($0)", ApplicantLedger(lastCounted: UnixTime(1))) })
        #expect(throws: StateStoreError.self) { try ledger.validated(at: Self.now, schedule: Self.schedule) }
    }

    @Test func anApplicantsDelayOfAnotherBootStartsAgain() throws {
        var ledger = UserLedger()
        var bob = ApplicantLedger(lastCounted: UnixTime(1))
        bob.passcodeFailures = 3
        bob.passcodeDelay = PasscodeDelay(started: BootTime(boot: "boot-before", seconds: 9000), seconds: 60)
        ledger.applicants["1001"] = bob
        let loaded = try ledger.validated(at: Self.now, schedule: Self.schedule)
        #expect(loaded.applicants["1001"]?.passcodeDelay == PasscodeDelay(started: Self.now.uptime, seconds: 60))
        #expect(loaded.passcodeRefusal(at: Self.now, for: 1001)?.code == .passcodeLockout)
        #expect(loaded.passcodeRefusal(at: Self.now, for: nil) == nil)
    }
}
