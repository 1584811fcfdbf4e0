// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// `localauth evaluate`: every LAError's exit status, `--passcode-stdin`, Ctrl-C, and the terminal
/// through a pseudo-terminal.
@Suite("localauth evaluate", .timeLimit(.minutes(2)))
struct EvaluateCommandTests {
    typealias CLI = CommandLineTool
    let reason = ["--reason", "run the test"]

    @Test func outcomesAndTheirExitStatuses() async throws {
        try await withDaemon(configuration: CLI.daemonConfiguration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            func evaluate(_ arguments: [String], stdin: String = "") async throws -> CLI.Result {
                try await CLI.run(bus, ["evaluate"] + reason + arguments, stdin: stdin)
            }
            #expect(try await CLI.run(bus, ["sim", "touch", "right-index-finger"]).status == 0)
            let success = try await evaluate(["--policy", "biometrics"])
            #expect(success.status == 0 && success.stdout == "Authenticated.\n")

            for _ in 1...3 { _ = try await CLI.run(bus, ["sim", "touch", "left-thumb"]) }
            let failed = try await evaluate(["--policy", "biometrics", "--json"])
            #expect(failed.status == 1)
            let lines = failed.stdout.split(separator: "\n")
            #expect(lines.first?.hasPrefix(#"{"event":"prompt","kind":"no-match","message":"Fingerprint not recognized"#) == true)
            #expect(lines.last == #"{"event":"result","success":false,"error":{"name":"authenticationFailed","code":-1,"exitStatus":1,"message":"Authentication failed: the passcode, finger or face was not recognized."}}"#)

            for _ in 1...2 { _ = try await CLI.run(bus, ["sim", "touch", "left-thumb"]) }
            let locked = try await evaluate(["--policy", "biometrics"])
            #expect(locked.status == 8 && locked.stderr.contains("Biometry locked after too many failed attempts: enter your passcode"))
            #expect(try await CLI.run(bus, ["status"]).stdout.contains("biometry locked: enter your passcode"))

            let wrong = try await evaluate(["--passcode-stdin"], stdin: "not-the-passcode\n")
            #expect(wrong.status == 1)
            #expect(try await client.userState()["PasscodeFailures"] == .uint32(1))
            let unlocked = try await evaluate(["--policy", "owner", "--passcode-stdin"], stdin: "4711-secret\n")
            #expect(unlocked.status == 0 && unlocked.stderr.contains("Enter your passcode"))
            #expect(!unlocked.stdout.contains("4711") && !unlocked.stderr.contains("4711"))
            #expect(try await client.userState()["BiometryLockedOut"] == .bool(false))

            #expect(try await evaluate(["--policy", "biometrics", "--no-interaction"]).status == 12)
            #expect(try await evaluate(["--policy", "companion"]).status == 11)
            #expect(try await evaluate(["--policy", "biometrics", "--passcode-stdin"]).status == 64)
        }
    }

    @Test func biometryNotEnrolledNotAvailableAndPasscodeNotSet() async throws {
        try await withDaemon(configuration: CLI.daemonConfiguration) { _, bus in
            let notSet = try await CLI.run(bus, ["evaluate"] + reason)
            #expect(notSet.status == 5 && notSet.stderr.contains("localauth passcode set"))
            let client = try await Client(bus)
            try await client.setUp()
            let notEnrolled = try await CLI.run(bus, ["evaluate", "--policy", "biometrics"] + reason)
            #expect(notEnrolled.status == 7 && notEnrolled.stderr.contains("localauth enroll fingerprint right-index-finger"))
            try await client.simulator("SetConnected", [.string("fingerprint"), .bool(false)])
            try await client.simulator("SetConnected", [.string("face"), .bool(false)])
            #expect(try await CLI.run(bus, ["evaluate", "--policy", "biometrics"] + reason).status == 6)
        }
    }

    @Test func passcodeLockoutSaysWhenToTryAgain() async throws {
        try await withDaemon(configuration: CLI.daemonConfiguration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp()
            for attempt in 1...5 {
                let result = try await CLI.run(bus, ["evaluate", "--passcode-stdin"] + reason, stdin: "wrong-\(attempt)\n")
                #expect(result.status == 1, "attempt \(attempt)")
            }
            let delayed = try await CLI.run(bus, ["evaluate", "--passcode-stdin"] + reason, stdin: "4711-secret\n")
            #expect(delayed.status == 13 && delayed.stderr.contains("try again in"), "\(delayed.stderr)")
            // The time travels as data (the error's second argument), not only inside the message.
            let now = UInt64(Date().timeIntervalSince1970)
            do {
                _ = try await client.manager("SetRequireAttention", [.bool(false), .string("4711-secret")])
                Issue.record("SetRequireAttention during a passcode delay succeeded")
            } catch let error as DBusError {
                #expect(error.name.rawValue == "org.localauth.LocalAuthentication1.Error.PasscodeLockout")
                let retryAfter = try #require(error.details.first?.uint64, "PasscodeLockout carries no retry time: \(error.details)")
                #expect(retryAfter > now && retryAfter <= now + 61, "retryAfter \(retryAfter), now \(now)")
            }
            let json = try await CLI.run(bus, ["evaluate", "--json", "--passcode-stdin"] + reason, stdin: "4711-secret\n")
            #expect(json.status == 13 && json.stdout.contains("\"retryAfter\":"), "\(json.stdout)")
            #expect(try await CLI.run(bus, ["attention", "off", "--stdin"], stdin: "4711-secret\n").status == 13)
            let status = try await CLI.run(bus, ["status"])
            // One minute from the fifth failure, less whatever this test took since (seconds on a loaded machine).
            #expect(status.stdout.contains(/passcode: next try in (1 min|[1-5]?[0-9] s)/), "\(status.stdout)")
        }
    }

    @Test func daemonShutdownIsSystemCancel() async throws {
        try await withDaemon(configuration: CLI.daemonConfiguration) { daemon, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            let evaluation = try CLI.Running(bus, ["evaluate", "--policy", "biometrics"] + reason)
            #expect(try await evaluation.stderrLines.next(within: .seconds(10)).hasPrefix("Touch the fingerprint sensor"))
            #expect(try await daemon.terminate() == 0)
            let result = try await evaluation.finish()
            #expect(result.status == 4 && result.stderr.contains("The system cancelled the request"))
        }
    }

    @Test func ctrlCCancelsTheEvaluationAndCountsNothing() async throws {
        try await withDaemon(configuration: CLI.daemonConfiguration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            let evaluation = try CLI.Running(bus, ["evaluate", "--policy", "owner"] + reason)
            #expect(try await evaluation.stderrLines.next(within: .seconds(10)).hasPrefix("Touch the fingerprint sensor"))
            evaluation.interrupt()
            let result = try await evaluation.finish()
            #expect(result.status == 2)
            #expect(result.stderr.hasSuffix("localauth: Cancelled.\n"))
            // Its context is gone and nothing was counted.
            let gone = await errorName { _ = try await client.context("/org/localauth/LocalAuthentication1/context/1", "Cancel") }
            #expect(gone == "org.freedesktop.DBus.Error.UnknownObject")
            let state = try await client.userState()
            #expect(state["BiometryFailures"] == .uint32(0) && state["PasscodeFailures"] == .uint32(0))
        }
    }

    /// Drives `localauth` on a pseudo-terminal: waits for each text, then types the answer; prints
    /// everything the terminal showed and exits with localauth's status.
    static let pseudoTerminal = #"""
        import os, pty, select, sys, time
        steps = [s.split("=>", 1) for s in sys.argv[1].split("||") if s]
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(sys.argv[2], sys.argv[2:])
        seen, deadline = b"", time.time() + 20
        def read_some():
            global seen
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.time()))
            if not ready: raise SystemExit("timed out; seen: %r" % seen)
            try: chunk = os.read(fd, 4096)
            except OSError: chunk = b""
            seen += chunk
            return chunk
        for expect, answer in steps:
            while expect.encode() not in seen:
                if not read_some(): raise SystemExit("ended before %r; seen: %r" % (expect, seen))
            os.write(fd, answer.encode().decode("unicode_escape").encode())
        while read_some(): pass
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(seen.decode(errors="replace"))
        sys.exit(os.waitstatus_to_exitcode(status))
        """#

    /// `localauth arguments…` on a pseudo-terminal driven by ``pseudoTerminal``: each step waits for
    /// its prompt, then types its text. Also used by RightsCommandTests.
    static func onTerminal(_ bus: PrivateBus, _ steps: [(String, String)], _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let script = steps.map { "\($0.0)=>\($0.1)" }.joined(separator: "||")
        return try await runTool("/usr/bin/python3", ["-c", Self.pseudoTerminal, script, CLI.binary, "--address", bus.address] + arguments,
                                 timeout: .seconds(30))
    }

    @Test func passcodesAreReadFromTheTerminalWithoutEcho() async throws {
        try await withDaemon(configuration: CLI.daemonConfiguration) { _, bus in
            let set = try await Self.onTerminal(bus, [("New passcode:", "typed-secret\\n"), ("Repeat the new passcode:", "typed-secret\\n")],
                                           ["passcode", "set"])
            #expect(set.status == 0, "\(set.output)")
            #expect(set.output.contains("Passcode set.") && !set.output.contains("typed-secret"), "\(set.output)")

            let enroll = try await Self.onTerminal(bus, [("Passcode:", "typed-secret\\n")], ["enroll", "fingerprint", "right-thumb"])
            #expect(enroll.status == 0 && !enroll.output.contains("typed-secret"), "\(enroll.output)")

            // Policy owner takes the passcode while the fingerprint sensor listens.
            let evaluation = try await Self.onTerminal(bus, [("it is not shown", "wrong-guess\\n"), ("Wrong passcode", "typed-secret\\n")],
                                                  ["evaluate", "--reason", "unlock"])
            #expect(evaluation.status == 0, "\(evaluation.output)")
            #expect(evaluation.output.contains("Touch the fingerprint sensor to unlock") && evaluation.output.contains("Authenticated."))
            #expect(!evaluation.output.contains("typed-secret") && !evaluation.output.contains("wrong-guess"), "\(evaluation.output)")

            // An empty line is the fallback key: policy biometrics ends with userFallback.
            let fallback = try await Self.onTerminal(bus, [("Press Enter", "\\n")], ["evaluate", "--policy", "biometrics", "--reason", "unlock"])
            #expect(fallback.status == 3, "\(fallback.output)")
            #expect(fallback.output.contains("Fallback chosen"))
        }
    }
}
