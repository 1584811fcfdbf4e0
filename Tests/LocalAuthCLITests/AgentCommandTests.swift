// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// `localauth agent`: the terminal agent, driven through a pseudo-terminal.
@Suite("localauth agent", .timeLimit(.minutes(2)))
struct AgentCommandTests {
    typealias CLI = CommandLineTool
    static let configuration = CLI.daemonConfiguration + "app_passcode_entry = false\n"

    /// Returns once some fallback agent of this uid is registered (an own-contexts registration is then refused).
    static func waitForAgent(_ bus: PrivateBus) async throws {
        let probe = try await TestAgent(bus)
        defer { probe.close() }
        for _ in 0..<200 {
            if await errorName({ try await probe.register(options: ["OwnContexts": .bool(true)]) }) != nil { return }
            _ = try await probe.manager("UnregisterAgent")
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the terminal agent did not register")
    }

    @Test func theTerminalAgentTakesThePasscodeAndCancelsOnCtrlC() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let app = try await Client(bus)
            try await app.setUp(passcode: "typed-secret")
            let steps = [("my reason", "wrong-guess\\n"), ("Wrong passcode", "typed-secret\\n"), ("Authenticated.", ""),
                         ("second reason", "\\x03"), ("Ended: UserCancel", "\\x03")]
            let script = steps.map { "\($0.0)=>\($0.1)" }.joined(separator: "||")
            let terminal = Task {
                try await runTool("/usr/bin/python3", ["-c", EvaluateCommandTests.pseudoTerminal, script, CLI.binary,
                                                       "--address", bus.address, "agent", "--fallback"], timeout: .seconds(40))
            }
            try await Self.waitForAgent(bus)
            let context = try await app.createContext()
            _ = try await app.context(context, "EvaluatePolicy", [.uint32(2), .string("my reason")])
            let cancelled = await errorName { _ = try await app.context(try await app.createContext(), "EvaluatePolicy", [.uint32(2), .string("second reason")]) }
            #expect(cancelled == DaemonUnderTest.errorPrefix + "UserCancel")
            let result = try await terminal.value
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("Enter your passcode.") && result.output.contains("Wrong passcode; try again."), "\(result.output)")
            #expect(!result.output.contains("typed-secret") && !result.output.contains("wrong-guess"), "echoed: \(result.output)")
            #expect(try await app.userState()["PasscodeFailures"] == .uint32(0), "the success cleared the one wrong passcode")
        }
    }
}
