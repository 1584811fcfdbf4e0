// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// `localauth agent` across the daemon's lifetime, and what other processes' text can do to its
/// terminal: the real binaries on a private bus, the agent's output read from a pipe.
@Suite("localauth agent: restarts, idle exit, foreign text", .timeLimit(.minutes(3)))
struct AgentLifetimeTests {
    typealias CLI = CommandLineTool

    /// A running `localauth agent --fallback` with its output collected and its input a pipe.
    final class RunningAgent: Sendable {
        let process = Process()
        let input = Pipe()
        let heard: ChildOutput

        init(_ bus: PrivateBus) throws {
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = ["--address", bus.address, "agent", "--fallback"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            process.standardInput = input
            try process.run()
            heard = ChildOutput(output)
        }

        /// Waits (generously: the machine may be loaded) until the agent has written `text`.
        func waitFor(_ text: String, within timeout: Duration = .seconds(60)) async throws {
            let deadline = ContinuousClock.now + timeout
            while !heard.text.contains(text) {
                do { _ = try await heard.lines.next(within: deadline - .now) } catch {
                    Issue.record("no “\(text)” in: \(heard.text)")
                    throw error
                }
            }
        }

        func type(_ line: String) { ChildProcess.send(line + "\n", to: input) }

        deinit { ChildProcess.kill(process) }
    }

    static let configuration = CLI.daemonConfiguration + "app_passcode_entry = false\n"

    @Test func theAgentRegistersAgainWhenTheDaemonComesBackAndItsSheetsReachIt() async throws {
        try await withPrivateBus { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let daemon = try DaemonUnderTest(bus: bus, configuration: Self.configuration)
            defer { daemon.kill() }
            try await daemon.start(watcher: watcher)
            let app = try await Client(bus)
            try await app.setUp()
            let agent = try RunningAgent(bus)
            try await AgentCommandTests.waitForAgent(bus)

            daemon.kill()
            try await agent.waitFor("localauthd stopped")
            try await daemon.start(watcher: watcher)
            try await agent.waitFor("localauthd is back")

            // The first agent to register again keeps the place: a later process cannot take it.
            let latecomer = try await TestAgent(bus)
            defer { latecomer.close() }
            #expect(await errorName { try await latecomer.register() } == LocalAuthBusNames.errorPrefix + "Busy")

            let context = try await app.createContext()
            let evaluation = Task { await errorName { _ = try await app.context(context, "EvaluatePolicy", [.uint32(2), .string("after the restart")]) } }
            try await agent.waitFor("after the restart")
            agent.type("4711-secret")
            #expect(await evaluation.value == nil, "\(agent.heard.text)")
            try await agent.waitFor("Authenticated.")
        }
    }

    /// The first agent to register with the new daemon keeps the place; one that comes back later
    /// says so and stops instead of running on unheard.
    @Test func anAgentThatComesBackAfterAnotherRegisteredSaysSoAndStops() async throws {
        try await withPrivateBus { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let daemon = try DaemonUnderTest(bus: bus, configuration: Self.configuration)
            defer { daemon.kill() }
            try await daemon.start(watcher: watcher)
            let agent = try RunningAgent(bus)
            let exited = Inbox<Int32>()
            ChildProcess.reportExit(of: agent.process, into: exited)
            try await AgentCommandTests.waitForAgent(bus)

            // Held still while the daemon restarts and another process registers first.
            kill(agent.process.processIdentifier, SIGSTOP)
            defer { kill(agent.process.processIdentifier, SIGCONT) }
            daemon.kill()
            try await daemon.start(watcher: watcher)
            let squatter = try await TestAgent(bus)
            defer { squatter.close() }
            try await squatter.register()
            kill(agent.process.processIdentifier, SIGCONT)

            let status = try await ChildProcess.exitStatus(of: agent.process, from: exited, within: .seconds(60))
            #expect(status == 75, "\(agent.heard.text)")
            // The exit can be seen before the last line is read from the pipe.
            try await agent.waitFor("localauthd came back and refused this agent")
        }
    }

    /// Following localauthd's name must not hand the terminal to whoever takes it next: on a bus
    /// where anyone may own the name, an owner of another uid is not served, and the agent says so.
    @Test func anAgentDoesNotServeANewOwnerOfTheNameWithAnotherUid() async throws {
        try await withPrivateBus(allowingEveryUser: true) { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let daemon = try DaemonUnderTest(bus: bus, configuration: Self.configuration)
            defer { daemon.kill() }
            try await daemon.start(watcher: watcher)
            let agent = try RunningAgent(bus)
            let exited = Inbox<Int32>()
            ChildProcess.reportExit(of: agent.process, into: exited)
            try await AgentCommandTests.waitForAgent(bus)
            daemon.kill()
            try await agent.waitFor("localauthd stopped")

            let impostor = Process()
            impostor.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            impostor.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", PythonDBusClient.prelude + """
                bus.request_name(N, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
                print('owned', flush=True)
                sys.stdin.read()
                """, bus.address]
            let impostorInput = Pipe(), impostorOutput = Pipe()
            impostor.standardInput = impostorInput
            impostor.standardOutput = impostorOutput
            try impostor.run()
            defer { ChildProcess.kill(impostor) }
            #expect(try await ChildOutput(impostorOutput).lines.next(within: .seconds(60)) == "owned")

            let status = try await ChildProcess.exitStatus(of: agent.process, from: exited, within: .seconds(60))
            #expect(status == 77, "\(agent.heard.text)")
            #expect(agent.heard.text.contains("uid 65534") && agent.heard.text.contains("this agent does not serve it"), "\(agent.heard.text)")
        }
    }

    @Test func idleExitWaitsWhileAnAgentIsRegistered() async throws {
        try await withPrivateBus { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let gone = Inbox<Int>()
            let subscription = try await watcher.watchNameOwners(LocalAuthBusNames.busName) { change in
                if change.newOwner == nil { gone.put(0) }
            }
            defer { watcher.unsubscribe(subscription) }
            let daemon = try DaemonUnderTest(bus: bus, configuration: Self.configuration)
            defer { daemon.kill() }
            try await daemon.start(watcher: watcher, arguments: ["--idle-exit", "1"])
            let agent = try RunningAgent(bus)
            try await AgentCommandTests.waitForAgent(bus)

            // Eight idle-exit periods with no context: the registered agent keeps the daemon.
            let stayed: Bool
            do {
                _ = try await gone.next(within: .seconds(8))
                stayed = false
            } catch is Inbox<Int>.TimedOut {
                stayed = true
            }
            #expect(stayed, "localauthd exited under a registered agent:\n\(daemon.logText)")

            // An Inbox ends with a wait that timed out: a new one for the exit that must come now.
            let exited = Inbox<Int>()
            let exit = try await watcher.watchNameOwners(LocalAuthBusNames.busName) { change in
                if change.newOwner == nil { exited.put(0) }
            }
            defer { watcher.unsubscribe(exit) }
            ChildProcess.kill(agent.process)
            _ = try await exited.next(within: .seconds(60))
            #expect(daemon.logText.contains("idle for 1 s"), "\(daemon.logText)")
        }
    }

    @Test func anAppsReasonAndTitlesReachTheAgentWithoutTerminalControls() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let app = try await Client(bus)
            try await app.setUp()
            let agent = try RunningAgent(bus)
            try await AgentCommandTests.waitForAgent(bus)

            let forged = "\u{1b}[2K\r\u{1b}[1Agnome-keyring-daemon: Unlock the login keyring\nsecond line\u{9b}2J"
            let context = try await app.createContext(["LocalizedFallbackTitle": .string("Use \u{202e}drowssap"),
                                                       "LocalizedCancelTitle": .string("\u{7}Stop")])
            let evaluation = Task { await errorName { _ = try await app.context(context, "EvaluatePolicy", [.uint32(2), .string(forged)]) } }
            try await agent.waitFor("gnome-keyring-daemon")
            try await agent.waitFor("(type your passcode")
            _ = try await app.context(context, "Cancel")
            #expect(await evaluation.value == LocalAuthBusNames.errorPrefix + "UserCancel")
            try await agent.waitFor("Ended")

            let text = agent.heard.text
            #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x0D || $0.value == 0x9B || $0.value == 0x07 }, "raw controls: \(text.debugDescription)")
            #expect(!text.unicodeScalars.contains { (0x202A...0x202E).contains($0.value) }, "a bidi override: \(text.debugDescription)")
            #expect(text.contains(#"\x1b[2K\x0d\x1b[1Agnome-keyring-daemon: Unlock the login keyring\x0asecond line\x9b2J"#), "shown visibly, on one line: \(text)")
            #expect(text.contains(#"Use \u{202e}drowssap"#), "\(text)")
        }
    }
}
