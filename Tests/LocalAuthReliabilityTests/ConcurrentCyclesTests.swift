// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// Many clients each run full evaluation cycles at once (CreateContext → Touch → EvaluatePolicy →
/// Invalidate), as `make bench` does: every touch reaches an evaluation and every evaluation ends
/// with the match, none waits for its client's timeout.
@Suite("Concurrent cycles", .timeLimit(.minutes(5)))
struct ConcurrentCyclesTests {
    static let clients = StressLevel.count("LOCALAUTH_CYCLE_CLIENTS", bounded: 64, stress: 128)
    static let cyclesPerClient = StressLevel.count("LOCALAUTH_CYCLES_PER_CLIENT", bounded: 3, stress: 25)

    @Test func sixtyFourClientsRunningFullCyclesAllComplete() async throws {
        let (count, cycles) = (Self.clients, Self.cyclesPerClient)
        try await withDaemon(configuration: "max_contexts = \(count * 4)\nroot_reserved_contexts = 0\n") { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: ["right-index-finger"])
            let clients = try await withThrowingTaskGroup(of: Client.self) { group in
                for _ in 0..<count { group.addTask { try await Client(bus) } }
                return try await group.reduce(into: [Client]()) { $0.append($1) }
            }
            // Each cycle's outcome: nil for a match, else the step and the error it ended with.
            let outcomes = await withTaskGroup(of: [String?].self) { group in
                for client in clients {
                    group.addTask {
                        var outcomes: [String?] = []
                        for _ in 0..<cycles { outcomes.append(await Self.cycle(client)) }
                        return outcomes
                    }
                }
                return await group.reduce(into: [String?]()) { $0 += $1 }
            }
            let failures = outcomes.compactMap { $0 }.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
            #expect(outcomes.count == count * cycles)
            #expect(failures.isEmpty, "of \(count * cycles) cycles of \(count) concurrent clients, these failed (step: error: how many): \(failures); reproduce: LOCALAUTH_CYCLE_CLIENTS=\(count) swift test --filter ConcurrentCyclesTests")
        }
    }

    /// One full cycle with the enrolled finger; nil when the evaluation matched.
    static func cycle(_ client: Client) async -> String? {
        let context: String
        do { context = try await client.createContext() } catch { return "CreateContext: \(error)" }
        if let failure = await errorName({ try await client.simulator("Touch", [.string("right-index-finger")]) }) {
            _ = try? await client.context(context, "Invalidate")
            return "Touch: \(failure)"
        }
        let evaluation = await errorName { _ = try await client.context(context, "EvaluatePolicy", [.uint32(1), .string("cycle")], timeout: .seconds(60)) }
        let invalidated = await errorName { _ = try await client.context(context, "Invalidate") }
        if let evaluation { return "EvaluatePolicy: \(evaluation)" }
        return invalidated.map { "Invalidate: \($0)" }
    }
}
