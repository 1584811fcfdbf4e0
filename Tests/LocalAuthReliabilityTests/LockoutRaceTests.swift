// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// Many clients fail at once for the same user: the ledger counts exactly up to the lock and no
/// attempt gets past it.
@Suite("Lockout race", .timeLimit(.minutes(5)))
struct LockoutRaceTests {
    typealias D = DaemonUnderTest

    @Test func simultaneousFailuresLockAtExactlyFiveAndNothingGetsPast() async throws {
        let count = StressLevel.raceClients
        try await withDaemon(configuration: "max_contexts = \(count * 4)\nroot_reserved_contexts = 0\n") { daemon, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: ["right-index-finger"])
            let clients = try await withThrowingTaskGroup(of: Client.self) { group in
                for _ in 0..<count { group.addTask { try await Client(bus) } }
                var all: [Client] = []
                for try await client in group { all.append(client) }
                return all
            }
            // Every client's evaluation is running (prompted) before anyone touches.
            var evaluations: [Task<String?, Never>] = []
            for client in clients { evaluations.append(try await client.begin(try await client.createContext(), policy: 1)) }
            // All clients fail at the same moment; refusals of a full queue after the lock are fine.
            let touches = await withTaskGroup(of: String?.self) { group in
                for client in clients { group.addTask { await errorName { try await client.simulator("Touch", [.string("left-thumb")]) } } }
                return await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(touches.allSatisfy { $0 == nil || $0 == "org.freedesktop.DBus.Error.LimitsExceeded" }, "\(count) clients: touches answered \(touches)")
            var outcomes: [String?] = []
            for evaluation in evaluations { outcomes.append(await evaluation.value) }
            let allowed: Set<String?> = [LocalAuthBusNames.errorPrefix + "AuthenticationFailed", LocalAuthBusNames.errorPrefix + "BiometryLockout"]
            #expect(outcomes.allSatisfy { allowed.contains($0) }, "\(count) clients: an evaluation ended otherwise: \(outcomes)")
            var state = try await admin.userState()
            #expect(state["BiometryFailures"] == .uint32(5) && state["BiometryLockedOut"] == .bool(true),
                    "\(count) clients failing at once: expected exactly 5 failures and a lock, got \(state); reproduce: LOCALAUTH_RACE_CLIENTS=\(count) swift test --filter LockoutRaceTests")

            // Past the lock, matching fingers race new evaluations: every one is refused.
            let late = await withTaskGroup(of: String?.self) { group in
                for client in clients {
                    group.addTask {
                        _ = await errorName { try await client.simulator("Touch", [.string("right-index-finger")]) }
                        return await errorName {
                            let context = try await client.createContext()
                            _ = try await client.context(context, "EvaluatePolicy", [.uint32(1), .string("after the lock")])
                        }
                    }
                }
                return await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(late.allSatisfy { $0 == LocalAuthBusNames.errorPrefix + "BiometryLockout" }, "an attempt was accepted past the lock: \(late)")
            state = try await admin.userState()
            #expect(state["BiometryFailures"] == .uint32(5) && state["BiometryLockedOut"] == .bool(true), "after the lock: \(state)")
            #expect(!daemon.logText.isEmpty)
        }
    }
}
