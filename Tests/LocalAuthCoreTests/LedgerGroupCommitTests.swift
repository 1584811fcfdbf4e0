// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthTestSupport
import Synchronization
import Testing

/// Counted failures are written off the engine's actor (a ``LedgerWriter``): a slow write holds up
/// only the attempts it contains, concurrent failures of one user share a write, and a failed
/// write refuses every attempt it contained.
@Suite("Ledger group commit: durable failures off the engine's actor", .timeLimit(.minutes(1)))
struct LedgerGroupCommitTests {
    typealias H = EngineHarness
    let bio = LAPolicy.deviceOwnerAuthenticationWithBiometrics
    /// What each concurrent attempt saw on disk when it was answered.
    final class SavedAtReply: Sendable {
        let counts = Mutex<[Int?]>([])
    }

    /// Concurrent wrong passcodes of one user.
    static let concurrentFailures = 6

    /// Passcode checks of one user that may all run at once, with no delay between failures.
    func concurrentPasscodeHarness() throws -> EngineHarness {
        var configuration = Configuration()
        configuration.maxPasscodeOperationsPerUser = Self.concurrentFailures
        configuration.passcodeDelays = [0]
        configuration.passcodeMaxFailures = 100
        return try EngineHarness(configuration: configuration)
    }

    @Test func whileANoMatchIsBeingSavedOtherClientsAreAnsweredAndItIsReportedOnlyOnceSaved() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        try await h.setUp(H.bob, fingers: ["right-index-finger"])
        let bobContext = try await h.context(H.bob)
        h.store.holdLedgerWrites()
        let context = try await h.context()
        let evaluation = await h.begin(bio, on: context)
        let touch = Task { try await h.fingerprint.touch("left-thumb") }
        #expect(await eventually { h.store.heldLedgerWrites == 1 }, "the no-match's write is held")

        // The engine answers another client meanwhile (the old engine wrote on its actor: it would hang here).
        try await h.engine.canEvaluatePolicy(bio, context: bobContext, caller: H.bob.client)
        #expect(try await h.state(of: bobContext, H.bob) == .idle)
        #expect((h.store.ledger(of: H.alice.uid)?.biometryFailures ?? 0) == 0, "not saved yet")
        #expect(!h.observer.promptKinds(for: context).contains(.noMatch), "not reported before it is saved")

        h.store.releaseLedgerWrites()
        try await touch.value
        #expect(h.store.ledger(of: H.alice.uid)?.biometryFailures == 1)
        #expect(h.observer.promptKinds(for: context).contains(.noMatch), "reported once saved")
        try await h.fingerprint.touch("right-index-finger")
        #expect(try await evaluation.result.get() == .biometricMatch(.fingerprint))
    }

    @Test func aNoMatchWhoseEvaluationEndedWhileItWasSavedIsCountedButNotReported() async throws {
        let h = try EngineHarness()
        try await h.setUp(fingers: ["right-index-finger"])
        h.store.holdLedgerWrites()
        let context = try await h.context()
        let evaluation = await h.begin(bio, on: context)
        let touch = Task { try await h.fingerprint.touch("left-thumb") }
        #expect(await eventually { h.store.heldLedgerWrites == 1 })
        try await h.engine.cancel(context: context, caller: H.alice.client)
        #expect(await evaluation.errorCode == .userCancel, "the cancel is answered while the write is held")

        h.store.releaseLedgerWrites()
        try await touch.value
        #expect(h.store.ledger(of: H.alice.uid)?.biometryFailures == 1, "counted and saved")
        #expect(!h.observer.promptKinds(for: context).contains(.noMatch), "the ended evaluation is not told")
    }

    @Test func concurrentFailuresOfOneUserAreAllCountedAndSavedBeforeTheirRepliesInOneWrite() async throws {
        let h = try concurrentPasscodeHarness()
        try await h.setUp()
        let writesBefore = h.store.ledgerWrites
        h.store.holdLedgerWrites()
        // What each wrong guess saw on disk when it was answered.
        let savedAtReply = SavedAtReply()
        let n = Self.concurrentFailures
        let guesses = (0..<n).map { _ in
            Task { () -> LocalAuthError? in
                defer { savedAtReply.counts.withLock { $0.append(h.store.ledger(of: H.alice.uid)?.passcodeFailures) } }
                do { try await h.engine.setRequireAttention(true, passcode: Passcode("wrong-guess"), caller: H.alice) } catch { return error as? LocalAuthError }
                return nil
            }
        }
        #expect(await eventually { await h.engine.userState(of: H.alice.uid).passcodeFailures == n }, "all counted")
        #expect(savedAtReply.counts.withLock { $0.isEmpty }, "none answered before its count is saved")
        #expect((h.store.ledger(of: H.alice.uid)?.passcodeFailures ?? 0) == 0, "not saved yet")

        h.store.releaseLedgerWrites()
        for guess in guesses { #expect(await guess.value?.code == .authenticationFailed) }
        #expect(h.store.ledger(of: H.alice.uid)?.passcodeFailures == n, "every failure is on disk")
        #expect(savedAtReply.counts.withLock { $0 } == Array(repeating: Optional(n), count: n), "each was saved before its reply")
        let writes = h.store.ledgerWrites - writesBefore
        #expect(writes < n, "\(n) failures shared \(writes) write(s)")
        #expect(writes == 1, "all \(n) were waiting for the one held write")
    }

    @Test func aFailedWriteRefusesEveryAttemptItContainedAndSavesNothing() async throws {
        let h = try concurrentPasscodeHarness()
        try await h.setUp()
        h.store.holdLedgerWrites()
        let n = Self.concurrentFailures
        let guesses = (0..<n).map { _ in
            Task { () -> LocalAuthError? in
                do { try await h.engine.setRequireAttention(false, passcode: Passcode(H.passcode), caller: H.alice) } catch { return error as? LocalAuthError }
                return nil
            }
        }
        #expect(await eventually { await h.engine.userState(of: H.alice.uid).passcodeFailures == n })
        h.store.setFailWrites(true)
        h.store.releaseLedgerWrites()
        for guess in guesses {
            let error = await guess.value
            #expect(error?.kind == .serviceFailure && error?.message.contains("disk space") == true,
                    "refused even with the right passcode: its count could not be saved: \(String(describing: error))")
        }
        #expect((h.store.ledger(of: H.alice.uid)?.passcodeFailures ?? 0) == 0, "nothing unsaved on disk")
        #expect(h.store.profile(of: H.alice.uid)?.requireAttention == true, "no refused attempt changed anything (on by default)")
        #expect(h.audit.all.filter { $0.event == .stateError }.count == 1, "logged once")

        // While the ledger cannot be saved every attempt is refused; once it can, the counts in force are saved first.
        await #expect(throws: LocalAuthError.self) { try await h.engine.setRequireAttention(false, passcode: Passcode(H.passcode), caller: H.alice) }
        h.store.setFailWrites(false)
        try await h.engine.setRequireAttention(false, passcode: Passcode(H.passcode), caller: H.alice)
        #expect(h.store.ledger(of: H.alice.uid)?.passcodeFailures == 0, "the right passcode cleared the saved counts")
        #expect(h.store.profile(of: H.alice.uid)?.requireAttention == false)
    }
}
