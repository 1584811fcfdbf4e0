// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// `localauth provider check`: the reference provider passes every step; broken providers and
/// descriptors fail with a sentence that says what to fix. Each run starts its own private bus.
@Suite("localauth provider check")
struct ProviderCheckTests {
    /// A whole check runs a Python provider through fourteen steps; on a loaded machine that takes
    /// seconds, and the hang step waits out its call timeout.
    static let generous: Duration = .seconds(180)

    /// `--simulate` with a call timeout a loaded machine's Python provider meets easily. Whatever
    /// the outcome, nothing the check started (its private bus, the provider) may outlive it.
    static func check(_ descriptor: String, _ options: [String] = ["--simulate", "--call-timeout", "30"]) async throws -> CommandLineTool.Result {
        let mark = ProcessMark()
        let result = try await CommandLineTool.run(nil, ["provider", "check", descriptor] + options, environment: mark.environment, timeout: generous)
        let left = await mark.leftovers()
        #expect(left.isEmpty, "left behind by provider check: \(left)")
        return result
    }

    @Test func theReferenceProviderPassesEveryStep() async throws {
        let provider = try ReferenceProvider()
        let result = try await Self.check("\(provider.directory)/reference.provider")
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let steps = result.stdout.split(separator: "\n").filter { $0.hasPrefix("PASS") || $0.hasPrefix("FAIL") }
        #expect(steps.map { $0.split(separator: " ", omittingEmptySubsequences: true)[1] } == [
            "descriptor:", "start:", "hello:", "availability:", "list-templates:", "arm:", "ping:", "attempt:", "disarm:", "enroll:", "enroll-complete:", "match:", "delete:",
            "refusals:",
        ], "\(result.stdout)")
        #expect(steps.allSatisfy { $0.hasPrefix("PASS") } && result.stdout.contains("All steps passed."), "\(result.stdout)")
    }

    @Test func aProviderAnsweringHelloWithAnotherVersionFailsAtTheHandshake() async throws {
        let provider = try ReferenceProvider(arguments: ["--protocol-version", "2"])
        let result = try await Self.check("\(provider.directory)/reference.provider")
        #expect(result.status == 70, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("FAIL  hello: Hello answered version 2; answer with the minor version localauthd sent (1 here) or lower"), "\(result.stdout)")
        #expect(!result.stdout.contains("arm:") && result.stdout.contains("1 step failed."), "the check stops without a handshake: \(result.stdout)")
    }

    /// A copy of the reference provider whose Arm never replies: the arm step fails as a hang and
    /// the steps after it still run.
    @Test func aProviderThatNeverAnswersArmFailsAsAHang() async throws {
        let provider = try ReferenceProvider()
        let original = try String(contentsOfFile: ReferenceProvider.script, encoding: .utf8)
        let answered = """
                self.simulator.Listening("armed", dbus.UInt64(session))
                self._answer(reply)
        """
        #expect(original.contains(answered), "the reference provider's Arm changed; adapt this test")
        let broken = original.replacingOccurrences(of: answered, with: """
                self.simulator.Listening("armed", dbus.UInt64(session))
        """)
        let script = "\(provider.directory)/broken-provider.py"
        try broken.write(toFile: script, atomically: true, encoding: .utf8)
        let descriptor = "\(provider.directory)/reference.provider"
        let text = try String(contentsOfFile: descriptor, encoding: .utf8).replacingOccurrences(of: ReferenceProvider.script, with: script)
        try text.write(toFile: descriptor, atomically: true, encoding: .utf8)

        let result = try await Self.check(descriptor, ["--simulate", "--call-timeout", "10"])
        #expect(result.status == 70, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("FAIL  arm: Arm: no reply within 10 s (localauthd would take the provider for hung and restart it)"), "\(result.stdout)")
        #expect(result.stdout.contains("PASS  hello:") && result.stdout.contains("enroll:") && result.stdout.contains("refusals:"), "\(result.stdout)")
    }

    @Test func aDescriptorWithAnInlineCommentFailsWithItsLine() async throws {
        let provider = try ReferenceProvider()
        let descriptor = "\(provider.directory)/reference.provider"
        let text = try String(contentsOfFile: descriptor, encoding: .utf8).replacingOccurrences(of: "ProtocolVersion=1", with: "ProtocolVersion=1  # the major version")
        try text.write(toFile: descriptor, atomically: true, encoding: .utf8)
        let result = try await Self.check(descriptor)
        #expect(result.status == 70)
        #expect(result.stdout.contains("FAIL  descriptor: \(descriptor):7: inline comments are not allowed: put the comment on its own line"), "\(result.stdout)")
    }

    /// Ctrl-C and SIGTERM stop the private bus before the command exits; SIGKILL (a test's timeout,
    /// the OOM killer), which no handler sees, leaves it to the check's sentry. A descriptor without
    /// Exec= keeps the check waiting for the provider's name with its bus up.
    @Test("the private bus ends with the command", arguments: [SIGINT, SIGTERM, SIGKILL])
    func thePrivateBusEndsWithTheCommand(signal: Int32) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("provider-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let descriptor = directory.appendingPathComponent("acme.provider").path
        try "[Provider]\nId=acme\nModality=face\nBusName=com.acme.Face\nUser=\(getuid())\nProtocolVersion=1\n"
            .write(toFile: descriptor, atomically: true, encoding: .utf8)
        let mark = ProcessMark()
        let running = try CommandLineTool.Running(nil, ["provider", "check", descriptor], environment: mark.environment)
        var waiting = false
        while !waiting, let line = try? await running.stderrLines.next(within: .seconds(30)) {
            waiting = line.contains("The descriptor has no Exec=")
        }
        #expect(waiting, "the check never waited for the provider")
        #expect(mark.processes().contains { $0.command.hasPrefix("/usr/bin/dbus-daemon ") }, "no private bus: \(mark.processes())")
        kill(running.process.processIdentifier, signal)
        let result = try await running.finish(within: .seconds(30))
        #expect(result.status == (signal == SIGKILL ? SIGKILL : 130), "\(result.stdout)\n\(result.stderr)")
        let left = await mark.leftovers()
        #expect(left.isEmpty, "left behind by provider check: \(left)")
    }

    @Test func helpSaysWhatItChecks() async throws {
        let result = try await CommandLineTool.run(nil, ["provider", "check", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Usage: localauth provider check DESCRIPTOR") && result.stdout.contains("--simulate"), "\(result.stdout)")
    }
}
