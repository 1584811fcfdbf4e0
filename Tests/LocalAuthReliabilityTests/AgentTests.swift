// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// Session agents show the sheet and take the passcode; the app sees only the result. Tests run
/// outside logind sessions, so agents register as fallback agents (session routing is tested on
/// the engine with an injected session directory: AgentRoutingTests).
@Suite("Agents", .timeLimit(.minutes(2)))
struct AgentTests {
    typealias D = DaemonUnderTest
    /// The shipped defaults for agents, spelled out (the harness turns them off for older tests).
    static let strict = "app_passcode_entry = false\nface_consent = true\n"
    static let passcode = "4711-secret"
    static let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]

    /// Starts a policy evaluation; the task gives the D-Bus error name it ended with, nil on success.
    static func evaluate(_ app: Client, _ context: String, policy: UInt32, reason: String = "open the vault") -> Task<String?, Never> {
        Task { await errorName { _ = try await app.context(context, "EvaluatePolicy", [.uint32(policy), .string(reason)]) } }
    }

    static func request(_ event: TestAgent.Event) throws -> [String: DBusValue] {
        guard case .begin(_, _, let request) = event else { throw Unexpected(event: event) }
        return request
    }

    static func result(_ event: TestAgent.Event) -> String? {
        if case .end(_, let result) = event { return result }
        return nil
    }

    struct Unexpected: Error { let event: TestAgent.Event }

    @Test func theAgentShowsTheSheetAndTakesThePasscodeWhileTheAppCannot() async throws {
        try await withDaemon(configuration: Self.strict) { _, bus in
            let app = try await Client(bus)
            try await app.setUp()
            let agent = try await TestAgent(bus)
            try await agent.register()
            let context = try await app.createContext()
            let evaluation = Self.evaluate(app, context, policy: 2)
            let begin = try await agent.next("begin")
            let request = try Self.request(begin)
            #expect(request["Reason"] == .string("open the vault") && request["Policy"] == .uint32(2))
            #expect(request["PasscodeAllowed"] == .bool(true) && request["Title"] == .string("Authentication Required"))
            #expect(request["CancelTitle"] == .string("Cancel") && request["FallbackTitle"] == .string("Enter Password"))
            #expect(request["App"]?.string?.hasPrefix("/") == true, "the app's executable: \(String(describing: request["App"]))")
            #expect(begin.cookie?.count == 64)
            let wanted = try await agent.next("passcode")
            // The app may neither type the passcode nor hear that it is wanted.
            let refused = await errorName { _ = try await app.context(context, "SubmitPasscode", [.string(Self.passcode)]) }
            #expect(refused == "org.freedesktop.DBus.Error.NotSupported")
            try await agent.respond(try #require(wanted.cookie), "passcode", passcode: Self.passcode)
            #expect(await evaluation.value == nil)
            #expect(Self.result(try await agent.next("end")) == "success")
            #expect(try await app.userState()["PasscodeFailures"] == .uint32(0))
        }
    }

    @Test func wrongPasscodesThroughAnAgentCountInTheLedgerAndCookiesAreSingleUse() async throws {
        try await withDaemon(configuration: Self.strict) { _, bus in
            let app = try await Client(bus)
            try await app.setUp()
            let agent = try await TestAgent(bus)
            try await agent.register()
            let context = try await app.createContext()
            let evaluation = Self.evaluate(app, context, policy: 2)
            let first = try #require(try await agent.next("passcode").cookie)
            let wrong = await errorName { try await agent.respond(first, "passcode", passcode: "wrong-guess") }
            #expect(wrong == LocalAuthBusNames.errorPrefix + "AuthenticationFailed")
            #expect(try await app.userState()["PasscodeFailures"] == .uint32(1))
            // The cookie is used up: even the right passcode with it is refused, and not counted.
            let reused = await errorName { try await agent.respond(first, "passcode", passcode: Self.passcode) }
            #expect(reused == "org.freedesktop.DBus.Error.AccessDenied")
            #expect(try await app.userState()["PasscodeFailures"] == .uint32(1))
            let second = try #require(try await agent.next("ready").cookie)
            #expect(second != first)
            try await agent.respond(second, "passcode", passcode: Self.passcode)
            #expect(await evaluation.value == nil)
            #expect(Self.result(try await agent.next("end")) == "success")
            // After the end no cookie of it answers anything.
            for cookie in [first, second] {
                #expect(await errorName { try await agent.respond(cookie, "cancel") } == "org.freedesktop.DBus.Error.AccessDenied")
            }
        }
    }

    /// Another connection of the same uid, and uid 65534, both holding the real cookie, cannot answer.
    @Test func aConnectionThatIsNotTheRegisteredAgentCannotAnswer() async throws {
        try await withDaemon(configuration: Self.strict, allowingEveryUser: true) { _, bus in
            let app = try await Client(bus)
            try await app.setUp()
            let agent = try await TestAgent(bus)
            try await agent.register()
            let context = try await app.createContext()
            let evaluation = Self.evaluate(app, context, policy: 2)
            let cookie = try #require(try await agent.next("passcode").cookie)

            let sameUser = try await TestAgent(bus)
            for (response, passcode) in [("passcode", Self.passcode), ("cancel", ""), ("fallback", "")] {
                let answer = await errorName { try await sameUser.respond(cookie, response, passcode: passcode) }
                #expect(answer == "org.freedesktop.DBus.Error.AccessDenied", "\(response) from another connection: \(answer ?? "taken")")
            }
            let stranger = PythonDBusClient.prelude + """
            m = dbus.Interface(bus.get_object(N, M, introspect=False), N + '.Manager')
            attempt('passcode', lambda: m.AgentResponse(sys.argv[2], 'passcode', sys.argv[3]))
            attempt('cancel', lambda: m.AgentResponse(sys.argv[2], 'cancel', ''))
            attempt('register', lambda: m.RegisterAgent('C', dbus.Dictionary({'Fallback': dbus.Boolean(True)}, signature='sv')))
            attempt('passcode-as-agent', lambda: m.AgentResponse(sys.argv[2], 'passcode', sys.argv[3]))
            """
            let attempts = try await runTool("/usr/bin/setpriv", Self.nobody + ["/usr/bin/python3", "-c", stranger, bus.address, cookie, Self.passcode],
                                             timeout: .seconds(30))
            #expect(attempts.output == """
                passcode org.freedesktop.DBus.Error.AccessDenied
                cancel org.freedesktop.DBus.Error.AccessDenied
                register allowed
                passcode-as-agent org.freedesktop.DBus.Error.AccessDenied

                """, "\(attempts.output)")
            // Nothing of it counted or ended the evaluation; the real agent still answers.
            #expect(try await app.property(context, "State") == .string("passcode"))
            #expect(try await app.userState()["PasscodeFailures"] == .uint32(0))
            try await agent.respond(cookie, "cancel")
            #expect(await evaluation.value == LocalAuthBusNames.errorPrefix + "UserCancel")
            #expect(Self.result(try await agent.next("end")) == "UserCancel")
        }
    }

    /// uid 65534's terminal agent (a fallback agent of its own uid) never hears of my evaluation.
    @Test func anAgentOfAnotherUidNeverReceivesMyPrompt() async throws {
        try await withDaemon(configuration: Self.strict, allowingEveryUser: true) { _, bus in
            let app = try await Client(bus)
            try await app.setUp()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            let localauth = URL(fileURLWithPath: D.binary).deletingLastPathComponent().appendingPathComponent("localauth").path
            process.arguments = Self.nobody + [localauth, "--address", bus.address, "agent", "--fallback"]
            let output = Pipe(), input = Pipe()
            process.standardOutput = output
            process.standardError = output
            process.standardInput = input
            try process.run()
            defer { ChildProcess.kill(process) }
            let heard = ChildOutput(output)
            #expect(try await heard.lines.next(within: .seconds(10)).contains("Agent for your processes outside a session"))

            let context = try await app.createContext()
            // No agent of mine: policy 2 cannot ask for the passcode (the other uid's agent does not count).
            #expect(await Self.evaluate(app, context, policy: 2, reason: "my secret reason").value == LocalAuthBusNames.errorPrefix + "NotInteractive")
            // With my own agent the prompt goes to it alone.
            let mine = try await TestAgent(bus)
            try await mine.register()
            let evaluation = Self.evaluate(app, context, policy: 2, reason: "my secret reason")
            let cookie = try #require(try await mine.next("passcode").cookie)
            try await mine.respond(cookie, "passcode", passcode: Self.passcode)
            #expect(await evaluation.value == nil)
            ChildProcess.kill(process)
            #expect(!heard.text.contains("my secret reason") && !heard.text.contains("=="), "uid 65534's agent heard: \(heard.text)")
        }
    }

    /// A monitor sees the passcode pass once, from the agent to the daemon, never to or from the app.
    @Test func thePasscodeNeverCrossesTheAppsConnection() async throws {
        try await withDaemon(configuration: Self.strict) { _, bus in
            let app = try await Client(bus)
            try await app.setUp(passcode: "agent-only-7431")
            let agent = try await TestAgent(bus)
            try await agent.register()
            let monitor = Process()
            monitor.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-monitor")
            monitor.arguments = ["--address", bus.address]
            let pipe = Pipe()
            monitor.standardOutput = pipe
            monitor.standardError = pipe
            try monitor.run()
            defer { ChildProcess.kill(monitor) }
            let heard = ChildOutput(pipe), lines = heard.lines
            while try await !lines.next(within: .seconds(10)).contains("member=NameLost") {}

            let context = try await app.createContext()
            let evaluation = Self.evaluate(app, context, policy: 2)
            let cookie = try #require(try await agent.next("passcode").cookie)
            try await agent.respond(cookie, "passcode", passcode: "agent-only-7431")
            #expect(await evaluation.value == nil)
            _ = try await app.userState()
            while try await !lines.next(within: .seconds(10)).contains("member=GetUserState") {}

            // dbus-monitor prints a header line per message, its arguments indented below.
            var blocks: [[String]] = []
            for line in heard.text.split(separator: "\n").map(String.init) {
                if line.hasPrefix(" ") { blocks[blocks.count - 1].append(line) } else { blocks.append([line]) }
            }
            let carrying = blocks.filter { $0.joined(separator: "\n").contains("agent-only-7431") }
            #expect(carrying.count == 1, "\(carrying)")
            for block in carrying {
                #expect(block[0].contains("sender=\(agent.connection.uniqueName)") && block[0].contains("member=AgentResponse"), "\(block)")
                #expect(!block[0].contains(app.connection.uniqueName), "\(block)")
            }
            let toApp = blocks.filter { $0[0].contains("destination=\(app.connection.uniqueName)") }
            #expect(!toApp.isEmpty && toApp.allSatisfy { !$0.joined().contains("\"passcode\"") || $0[0].contains("PropertiesChanged") },
                    "no passcode prompt reaches the app: \(toApp)")
        }
    }

    /// No agent: biometry works; policy 2 ends with NotInteractive once it needs the passcode; the app cannot submit it.
    @Test func withoutAnAgentBiometryWorksAndPolicy2CannotAskForThePasscode() async throws {
        try await withDaemon(configuration: Self.strict) { _, bus in
            let app = try await Client(bus)
            try await app.setUp(fingers: ["right-index-finger"])
            let context = try await app.createContext()
            let biometric = try await app.begin(context, policy: 1)
            try await app.simulator("Touch", [.string("right-index-finger")])
            #expect(await biometric.value == nil)

            let other = try await app.createContext()
            let owner = try await app.begin(other, policy: 2)
            let submitted = await errorName { _ = try await app.context(other, "SubmitPasscode", [.string(Self.passcode)]) }
            #expect(submitted == "org.freedesktop.DBus.Error.NotSupported")
            try await app.simulator("Touch", [.string("right-index-finger")])
            #expect(await owner.value == nil)

            // The fallback asks for the passcode, which nobody can take.
            let third = try await app.createContext()
            let fallingBack = try await app.begin(third, policy: 2)
            _ = try await app.context(third, "Fallback")
            #expect(await fallingBack.value == LocalAuthBusNames.errorPrefix + "NotInteractive")
            #expect(try await app.userState()["PasscodeFailures"] == .uint32(0))
        }
    }

    @Test func theFallbackButtonAndCancelDrivenFromTheAgent() async throws {
        try await withDaemon(configuration: Self.strict) { _, bus in
            let app = try await Client(bus)
            try await app.setUp(fingers: ["right-index-finger"])
            let agent = try await TestAgent(bus)
            try await agent.register()
            // Policy 1: the fallback button ends it with UserFallback.
            let biometric = try await app.createContext(["LocalizedFallbackTitle": .string("Use Password")])
            let first = Self.evaluate(app, biometric, policy: 1)
            let begin = try await agent.next("begin")
            #expect(try Self.request(begin)["FallbackTitle"] == .string("Use Password") && Self.request(begin)["PasscodeAllowed"] == .bool(false))
            try await agent.respond(try #require(begin.cookie), "fallback")
            #expect(await first.value == LocalAuthBusNames.errorPrefix + "UserFallback")
            #expect(Self.result(try await agent.next("end")) == "UserFallback")
            // Policy 2: the fallback asks for the passcode, then the passcode succeeds.
            let owner = try await app.createContext()
            let second = Self.evaluate(app, owner, policy: 2)
            let listening = try await agent.next("begin")
            try await agent.respond(try #require(listening.cookie), "fallback")
            let wanted = try await agent.next("passcode")
            guard case .update(_, let cookie, let update) = wanted else { throw Unexpected(event: wanted) }
            #expect(update["Advice"] == .string("fallback"))
            try await agent.respond(cookie, "passcode", passcode: Self.passcode)
            #expect(await second.value == nil)
            // Cancel.
            let third = Self.evaluate(app, try await app.createContext(), policy: 2)
            try await agent.respond(try #require(try await agent.next("begin").cookie), "cancel")
            #expect(await third.value == LocalAuthBusNames.errorPrefix + "UserCancel")
            // A hidden fallback button: refused, the evaluation goes on, the next cookie still works.
            let hidden = try await app.createContext(["LocalizedFallbackTitle": .string("")])
            let fourth = Self.evaluate(app, hidden, policy: 1)
            let shown = try await agent.next("begin")
            #expect(await errorName { try await agent.respond(try #require(shown.cookie), "fallback") } == "org.freedesktop.DBus.Error.NotSupported")
            try await agent.respond(try #require(try await agent.next("ready").cookie), "cancel")
            #expect(await fourth.value == LocalAuthBusNames.errorPrefix + "UserCancel")
        }
    }

    @Test func theAgentGetsStructuredPromptsInItsLanguage() async throws {
        try await withDaemon(configuration: Self.strict) { _, bus in
            let app = try await Client(bus)
            try await app.setUp(fingers: ["right-index-finger"])
            let agent = try await TestAgent(bus)
            try await agent.register(locale: "de_DE.UTF-8")
            let context = try await app.createContext(["LocalizedCancelTitle": .string("Abbrechen")])
            let evaluation = Self.evaluate(app, context, policy: 2, reason: "den Tresor öffnen")
            let request = try Self.request(try await agent.next("begin"))
            #expect(request["Title"] == .string("Authentifizierung erforderlich"))
            #expect(request["Reason"] == .string("den Tresor öffnen") && request["CancelTitle"] == .string("Abbrechen"))
            guard case .update(_, _, let listening) = try await agent.next("biometry") else { return }
            #expect(listening["Message"] == .string("Berühren Sie den Fingerabdrucksensor.") && listening["Sensors"] == .strings(["fingerprint"]))
            try await app.simulator("FingerprintRetry", [.string("too-short")])
            guard case .update(_, _, let retry) = try await agent.next("retry") else { return }
            #expect(retry["Advice"] == .string("too-short") && retry["Message"] == .string("Die Berührung war zu kurz; versuchen Sie es erneut."))
            try await app.simulator("Touch", [.string("right-index-finger")])
            #expect(await evaluation.value == nil)
        }
    }

    @Test func registrationRules() async throws {
        try await withDaemon(configuration: Self.strict) { _, bus in
            let agent = try await TestAgent(bus)
            let invalid = "org.freedesktop.DBus.Error.InvalidArgs"
            // Tests run in no logind session: a session agent is refused with a hint.
            #expect(await errorName { try await agent.register(options: [:]) } == invalid)
            #expect(await errorName { try await agent.register(locale: "de_DE; rm -rf /") } == invalid)
            #expect(await errorName { try await agent.register(options: ["Fallback": .bool(true), "OwnContexts": .bool(true)]) } == invalid)
            #expect(await errorName { try await agent.register(options: ["Everyone": .bool(true)]) } == invalid)
            try await agent.register()
            #expect(await errorName { try await agent.register() } == LocalAuthBusNames.errorPrefix + "Busy")
            // With a fallback agent serving my uid, an app cannot be its own agent.
            let app = try await TestAgent(bus)
            #expect(await errorName { try await app.register(options: ["OwnContexts": .bool(true)]) } == LocalAuthBusNames.errorPrefix + "Busy")
            _ = try await agent.manager("UnregisterAgent")
            try await app.register(options: ["OwnContexts": .bool(true)])
            #expect(await errorName { _ = try await agent.manager("UnregisterAgent") } == invalid)
        }
    }

    /// Contexts of logins and sudo (root's User or Unlock, as the PAM module creates them) are
    /// their own sheet: they take the passcode themselves and no agent is asked.
    @Test func loginsAndSudoTakeThePasscodeThemselves() async throws {
        try await withDaemon(configuration: Self.strict) { _, bus in
            let app = try await Client(bus)
            try await app.setUp()
            let agent = try await TestAgent(bus)
            try await agent.register()
            let login = try await app.createContext(["User": .uint32(0), "Unlock": .bool(true)])
            let evaluation = try await app.begin(login, policy: 2)
            _ = try await app.context(login, "SubmitPasscode", [.string(Self.passcode)])
            #expect(await evaluation.value == nil)
            #expect(agent.events.received.isEmpty, "\(agent.events.received)")
        }
    }

    /// The agent's connection going away drops it: the next evaluation finds no agent.
    @Test func anAgentIsDroppedWhenItsConnectionGoes() async throws {
        try await withDaemon(configuration: Self.strict) { _, bus in
            let app = try await Client(bus)
            try await app.setUp()
            let agent = try await TestAgent(bus)
            try await agent.register()
            let context = try await app.createContext()
            let evaluation = Self.evaluate(app, context, policy: 2)
            _ = try await agent.next("passcode")
            agent.close()
            _ = try await app.context(context, "Cancel")
            #expect(await evaluation.value == LocalAuthBusNames.errorPrefix + "UserCancel")
            // The bus tells the daemon; a new evaluation then finds no agent.
            var outcome: String?
            for _ in 0..<50 {
                outcome = await Self.evaluate(app, context, policy: 2).value
                if outcome == LocalAuthBusNames.errorPrefix + "NotInteractive" { break }
                _ = try? await app.context(context, "Cancel")
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(outcome == LocalAuthBusNames.errorPrefix + "NotInteractive")
        }
    }
}
