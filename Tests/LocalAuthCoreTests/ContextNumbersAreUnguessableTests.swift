// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthTestSupport
import Synchronization
import Testing

/// Context numbers name contexts on the bus: they come from the cryptographic generator, so no
/// user can count or name another user's contexts (issue 27, R8).
@Suite("Context numbers are unguessable", .timeLimit(.minutes(1)))
struct ContextNumbersAreUnguessableTests {
    /// Hands out given numbers, then the system's; counts the draws.
    final class ScriptedNumbers: CookieSource {
        let state: Mutex<(script: [UInt64], draws: Int)>
        init(_ script: [UInt64]) { state = Mutex((script, 0)) }

        func cookie() -> String { SystemCookieSource().cookie() }

        func randomNumbers(_ count: Int) -> [UInt64] {
            state.withLock { state in
                state.draws += 1
                let scripted = Array(state.script.prefix(count))
                state.script.removeFirst(scripted.count)
                return scripted + SystemCookieSource().randomNumbers(count - scripted.count)
            }
        }
    }

    func engine(_ cookies: some CookieSource) throws -> PolicyEngine {
        var configuration = Configuration()
        configuration.maxContextsPerClient = 1000
        configuration.maxContextsPerUser = 1000
        return try PolicyEngine(configuration: configuration, backends: [], environment: .init(
            clock: FakeClock(), store: MemoryStateStore(), passcodeHasher: nil, domainStateHasher: FakeDomainStateHasher(),
            audit: RecordingAuditSink(), cookies: cookies))
    }

    @Test func contextNumbersAreRandomUniqueAndDrawnInBatches() async throws {
        let source = ScriptedNumbers([])
        let engine = try engine(source)
        var ids: [ContextID] = []
        for _ in 0..<200 { ids.append(try await engine.createContext(for: EngineHarness.alice, options: ContextOptions())) }
        #expect(Set(ids).count == 200)
        #expect(ids.allSatisfy { $0.rawValue > 0 && $0.rawValue < 1 << 53 })
        // A counter gives 1, 2, 3…; 200 random numbers below 2^53 are neither small nor in order.
        #expect(ids.filter { $0.rawValue < 1 << 32 }.count < 5)
        #expect(ids != ids.sorted() && ids != ids.sorted().reversed())
        #expect(source.state.withLock { $0.draws } == 4, "64 numbers a draw: 200 contexts take 4 draws")
    }

    /// A number drawn again while its context lives (or is remembered as invalidated) is skipped, as is 0.
    @Test func aRepeatedNumberIsSkipped() async throws {
        // Numbers are taken from the end of a draw.
        let source = ScriptedNumbers(Array(repeating: 7, count: 61) + [0, 42, 7])
        let engine = try engine(source)
        let first = try await engine.createContext(for: EngineHarness.alice, options: ContextOptions())
        let second = try await engine.createContext(for: EngineHarness.alice, options: ContextOptions())
        #expect(first == ContextID(7) && second == ContextID(42))
        try await engine.invalidate(context: first, caller: EngineHarness.alice.client)
        let third = try await engine.createContext(for: EngineHarness.alice, options: ContextOptions())
        #expect(third != first && third != second && third.rawValue != 0)
    }
}
