// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// Random and mutated messages to every method: each answered with an error, the daemon alive and
/// the caller's state unchanged.
@Suite("Bus fuzzing", .timeLimit(.minutes(10)))
struct BusFuzzTests {
    @Test func everyMalformedCallIsAnErrorAndChangesNothing() async throws {
        let seed = StressLevel.seed(), count = StressLevel.fuzzMessages
        let reproduce = StressLevel.reproduce("BusFuzzTests", seed: seed, extra: "LOCALAUTH_FUZZ_MESSAGES=\(count) ")
        try await withDaemon { daemon, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            let before = try await client.userState()
            let result = try await runTool("/usr/bin/python3", ["-c", BusFuzzer.script, bus.address, String(seed), String(count)],
                                           timeout: .seconds(StressLevel.isStress ? 600 : 60))
            #expect(result.status == 0, "\(result.output); \(reproduce)")
            #expect(result.output.contains("sent"), "\(result.output); \(reproduce)")
            print("bus fuzzer, seed \(seed): \(result.output)", terminator: "")
            #expect(try await client.userState() == before, "the fuzzer changed the user's state; \(reproduce)")
            let context = try await client.createContext()
            _ = try await client.context(context, "CanEvaluatePolicy", [.uint32(1)])
            #expect(!daemon.logText.contains("fatal") && !daemon.logText.contains("Fatal"), "\(daemon.logText); \(reproduce)")
        }
    }
}
