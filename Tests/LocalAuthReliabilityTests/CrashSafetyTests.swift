// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Synchronization
import Testing

/// kill -9 while failures and passcode changes are being recorded; after every restart the ledger
/// is readable, has not gone backwards and has not unlocked.
@Suite("Crash safety", .timeLimit(.minutes(10)))
struct CrashSafetyTests {
    typealias D = DaemonUnderTest

    /// What the workload last saw acknowledged. GetUserState answers from the engine, which saves
    /// every ledger change before anyone can observe it, so an acknowledged value is on disk.
    struct Acknowledged {
        var passcodeIndex = 0
        var changeInFlight = false
        var biometryFailures: UInt32 = 0
        var biometryLocked = false
    }

    /// Shared between the workload task and the checks after each restart.
    final class Tracker: Sendable {
        let acknowledged = Mutex(Acknowledged())
        func withLock<T>(_ body: (inout Acknowledged) -> T) -> T { acknowledged.withLock { body(&$0) } }
    }

    static func passcode(_ index: Int, seed: UInt64) -> String { "crash-\(seed)-\(index)" }

    @Test func killNineDuringFailuresAndPasscodeChangesNeverLosesOrUnlocks() async throws {
        let seed = StressLevel.seed(), rounds = StressLevel.crashRounds
        var random = SeededGenerator(seed: seed)
        try await withPrivateBus { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            // Ours, not a daemon's: each DaemonUnderTest removes its own scratch directory when it goes.
            let stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(seed)-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
            var daemon = try DaemonUnderTest(bus: bus, stateDirectory: stateDirectory)
            try await daemon.start(watcher: watcher)
            let setup = try await Client(bus)
            try await setup.setUp(passcode: Self.passcode(0, seed: seed), fingers: ["right-index-finger"])
            setup.connection.close()
            let acknowledged = Tracker()

            for round in 1...rounds {
                let where_ = "round \(round) of \(rounds), " + StressLevel.reproduce("CrashSafetyTests", seed: seed, extra: "LOCALAUTH_CRASH_ROUNDS=\(rounds) ")
                let client = try await Client(bus)
                let workload = Task { await Self.record(client, seed: seed, acknowledged: acknowledged) }
                try await Task.sleep(for: .milliseconds(Int.random(in: 5...250, using: &random)))  // the random crash point
                daemon.kill()
                _ = await workload.value
                client.connection.close()

                daemon = try DaemonUnderTest(bus: bus, stateDirectory: stateDirectory)
                try await daemon.start(watcher: watcher)
                let ack = acknowledged.withLock { $0 }
                let checker = try await Client(bus)
                let state = try await checker.userState()
                let ledger = "\(stateDirectory)/users/0/ledger.json"
                let parsed = FileManager.default.contents(atPath: ledger).flatMap { try? JSONSerialization.jsonObject(with: $0) }
                #expect(parsed != nil, "\(ledger) is not readable JSON after the crash; \(where_)")
                #expect(!daemon.logText.contains("Could not read"), "the restarted daemon could not read its state: \(daemon.logText); \(where_)")
                #expect(state["PasscodeLockedOut"] == .bool(false), "the user is locked (fail closed?): \(state); \(where_)")
                if !ack.changeInFlight {
                    let failures = state["BiometryFailures"]?.uint32 ?? 0
                    #expect(failures >= ack.biometryFailures, "failures went back from \(ack.biometryFailures) to \(failures); \(where_)")
                    if ack.biometryLocked {
                        #expect(state["BiometryLockedOut"] == .bool(true), "biometry unlocked by a crash: \(state); \(where_)")
                    }
                }
                // The passcode is the acknowledged one or, if a change was in flight, the new one.
                let candidates = ack.changeInFlight ? [ack.passcodeIndex + 1, ack.passcodeIndex] : [ack.passcodeIndex]
                var found: Int?, answers: [String?] = []
                for candidate in candidates where found == nil {
                    let context = try await checker.createContext()
                    let (evaluation, started) = try await Self.startEvaluation(checker, context)
                    guard started == nil else {
                        Issue.record("a policy-2 evaluation did not start: \(started ?? ""), state \(state); \(where_)")
                        break
                    }
                    let answer = await errorName { _ = try await checker.context(context, "SubmitPasscode", [.string(Self.passcode(candidate, seed: seed))]) }
                    answers.append(answer)
                    if answer == nil { found = candidate } else { _ = try await checker.context(context, "Invalidate") }
                    _ = await evaluation.value
                }
                #expect(found != nil, "the passcode is none of \(candidates.map { Self.passcode($0, seed: seed) }) (answers \(answers), state \(state)); \(where_)")
                // The correct passcode reset the counters; start the next round from there.
                let after = try await checker.userState()
                acknowledged.withLock {
                    $0 = Acknowledged(passcodeIndex: found ?? ack.passcodeIndex, biometryFailures: after["BiometryFailures"]?.uint32 ?? 0,
                                      biometryLocked: after["BiometryLockedOut"] == .bool(true))
                }
                checker.connection.close()
                if found == nil { break }
            }
            daemon.kill()
        }
    }

    /// Starts a policy-2 evaluation and waits for its first prompt; returns the evaluation and nil,
    /// or how it ended without prompting.
    static func startEvaluation(_ client: Client, _ context: String) async throws -> (Task<String?, Never>, String?) {
        let first = Inbox<String?>()
        let subscription = try await client.connection.subscribe(
            DBusMatchRule(path: context, interface: LocalAuthBusNames.contextInterface, member: "Prompt")) { _ in first.put(nil) }
        defer { client.connection.unsubscribe(subscription) }
        let evaluation = Task {
            let outcome = await errorName { _ = try await client.context(context, "EvaluatePolicy", [.uint32(2), .string("which passcode")]) }
            first.put("ended with \(outcome ?? "success")")
            return outcome
        }
        return (evaluation, try await first.next(within: .seconds(10)))
    }

    /// Fails biometric attempts until the lock, changes the passcode (which unlocks), and again,
    /// until the daemon is killed under it.
    static func record(_ client: Client, seed: UInt64, acknowledged: Tracker) async {
        while true {
            do {
                if acknowledged.withLock({ $0.biometryLocked }) {
                    let index = acknowledged.withLock { $0.changeInFlight = true; return $0.passcodeIndex }
                    _ = try await client.manager("SetPasscode", [.string(passcode(index, seed: seed)), .string(passcode(index + 1, seed: seed))])
                    // The acknowledged change also reset the biometric failures and the lock: a kill
                    // before the GetUserState below must not leave the old counts as what was seen.
                    acknowledged.withLock {
                        $0.passcodeIndex = index + 1
                        $0.changeInFlight = false
                        $0.biometryFailures = 0
                        $0.biometryLocked = false
                    }
                } else {
                    let context = try await client.createContext()
                    let evaluation = Task { await errorName { _ = try await client.context(context, "EvaluatePolicy", [.uint32(1), .string("crash")]) } }
                    for _ in 0..<3 { try await client.simulator("Touch", [.string("left-thumb")]) }
                    _ = await evaluation.value
                }
                let state = try await client.userState()
                acknowledged.withLock {
                    $0.biometryFailures = state["BiometryFailures"]?.uint32 ?? 0
                    $0.biometryLocked = state["BiometryLockedOut"] == .bool(true)
                }
            } catch {
                return  // the daemon is gone
            }
        }
    }
}
