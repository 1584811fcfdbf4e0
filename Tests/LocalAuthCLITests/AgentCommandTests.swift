// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
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
            #expect(cancelled == LocalAuthBusNames.errorPrefix + "UserCancel")
            let result = try await terminal.value
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("Enter your passcode.") && result.output.contains("Wrong passcode; try again."), "\(result.output)")
            #expect(!result.output.contains("typed-secret") && !result.output.contains("wrong-guess"), "echoed: \(result.output)")
            #expect(try await app.userState()["PasscodeFailures"] == .uint32(0), "the success cleared the one wrong passcode")
        }
    }
}

extension AgentCommandTests {
    /// Only localauthd may call the terminal agent: a forged sheet from another uid is refused and never shown.
    @Test func theTerminalAgentBelievesOnlyTheDaemon() async throws {
        try await withDaemon(configuration: Self.configuration, allowingEveryUser: true) { _, bus in
            let agent = Process()
            agent.executableURL = URL(fileURLWithPath: CLI.binary)
            agent.arguments = ["--address", bus.address, "agent", "--fallback"]
            let output = Pipe(), input = Pipe()
            agent.standardOutput = output
            agent.standardError = output
            agent.standardInput = input
            try agent.run()
            defer { ChildProcess.kill(agent) }
            let heard = ChildOutput(output)
            _ = try await heard.lines.next(within: .seconds(10))
            let forger = PythonDBusClient.prelude + """
            d = dbus.Interface(bus.get_object('org.freedesktop.DBus', '/org/freedesktop/DBus'), 'org.freedesktop.DBus')
            target = [n for n in d.ListNames() if n.startswith(':') and int(d.GetConnectionUnixProcessID(n)) == int(sys.argv[2])][0]
            sheet = bus.get_object(target, M + '/Agent', introspect=False)
            request = dbus.Dictionary({'Reason': 'forged: type your passcode', 'PasscodeAllowed': True}, signature='sv')
            attempt('forged-begin', lambda: sheet.BeginAuthentication('h', 'c', request, dbus_interface=N + '.Agent'))
            """
            let forged = try await runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", forger,
                                                                bus.address, String(agent.processIdentifier)], timeout: .seconds(30))
            #expect(forged.output == "forged-begin org.freedesktop.DBus.Error.AccessDenied\n", "\(forged.output)")
            ChildProcess.kill(agent)
            #expect(!heard.text.contains("forged"), "\(heard.text)")
        }
    }
}

extension AgentCommandTests {
    /// `evaluate` is its own agent only while none serves it (as pkexec); otherwise that agent asks.
    @Test func evaluateUsesTheAgentThatServesItOrBecomesItsOwn() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let app = try await Client(bus)
            try await app.setUp()
            // No agent: evaluate takes the passcode itself (standard input here), as its own agent.
            let alone = try await CLI.run(bus, ["evaluate", "--reason", "alone", "--passcode-stdin"], stdin: "4711-secret\n")
            #expect(alone.status == 0 && alone.stdout == "Authenticated.\n", "\(alone.stderr)")

            let agent = try await TestAgent(bus)
            try await agent.register()
            // With an agent, a passcode on standard input has nowhere to go: refused before anything runs.
            let refused = try await CLI.run(bus, ["evaluate", "--reason", "scripted", "--passcode-stdin"], stdin: "4711-secret\n")
            #expect(refused.status == 65 && refused.stderr.contains("An authentication agent serves this session"), "\(refused.stderr)")
            // The agent shows the sheet and answers; evaluate only learns the result.
            let running = try CLI.Running(bus, ["evaluate", "--reason", "served"])
            guard case .begin(_, _, let request) = try await agent.next("begin") else { throw TestAgent.Unexpected() }
            #expect(request["Reason"] == .string("served"))
            try await agent.respond(try #require(try await agent.next("passcode").cookie), "passcode", passcode: "4711-secret")
            let served = try await running.finish(within: .seconds(20))
            #expect(served.status == 0 && served.stdout == "Authenticated.\n", "\(served.stderr)")
        }
    }
}

extension AgentCommandTests {
    /// Any process of the uid can be a fallback agent (the app itself too), so the fallback terminal
    /// agent allows Face ID only with the passcode; a wrong one stores nothing and asks again.
    @Test func theFallbackTerminalAgentAllowsFaceOnlyWithThePasscode() async throws {
        try await withDaemon(configuration: Self.configuration + "face_consent = true\n") { _, bus in
            let app = try await Client(bus)
            try await app.setUp(faces: ["primary"])
            let agent = Process()
            agent.executableURL = URL(fileURLWithPath: CLI.binary)
            agent.arguments = ["--address", bus.address, "agent", "--fallback"]
            let output = Pipe(), input = Pipe()
            agent.standardOutput = output
            agent.standardError = output
            agent.standardInput = input
            try agent.run()
            defer { ChildProcess.kill(agent) }
            let heard = ChildOutput(output)
            try await Self.waitForAgent(bus)
            func waitFor(_ text: String) async throws {
                while !heard.text.contains(text) {
                    do { _ = try await heard.lines.next(within: .seconds(10)) } catch {
                        Issue.record("no “\(text)” in: \(heard.text)")
                        throw error
                    }
                }
            }

            let context = try await app.createContext(["FaceUsageDescription": .string("Unlock your notes.")])
            let evaluation = Task { await errorName { _ = try await app.context(context, "EvaluatePolicy", [.uint32(1), .string("open notes")]) } }
            try await waitFor("Type your passcode to allow it, or press Enter alone to refuse.")
            ChildProcess.send("wrong-guess\n", to: input)
            try await waitFor("Authentication failed")
            #expect(try await app.manager("GetFaceConsents").first?.arrayElements?.isEmpty == true, "nothing stored: \(heard.text)")
            ChildProcess.send("4711-secret\n", to: input)
            try await waitFor("Look at the screen.")
            let stored = try #require(try await app.manager("GetFaceConsents").first?.arrayElements?.first?.structure)
            #expect(stored[1] == .bool(true), "\(heard.text)")
            try await app.simulator("PresentFace", [.string("primary"), .bool(true)])
            #expect(await evaluation.value == nil, "\(heard.text)")
            #expect(!heard.text.contains("4711-secret") && !heard.text.contains("wrong-guess"), "echoed: \(heard.text)")
        }
    }
}
