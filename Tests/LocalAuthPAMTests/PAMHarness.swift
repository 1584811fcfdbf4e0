// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthTestSupport
import Testing

/// `pam_localauth.so` as `make pam` builds it, loaded by `pamtester` or `pypamtest` under pam_wrapper
/// with PAM service files of the test's own (never /etc/pam.d).
final class PAMHarness: Sendable {
    /// `LOCALAUTH_PAM_MODULE`, or `.build/pam/pam_localauth.so` in the package.
    static var module: String {
        if let path = ProcessInfo.processInfo.environment["LOCALAUTH_PAM_MODULE"] { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/pam/pam_localauth.so").path
    }
    /// pam_matrix from libpam-wrapper, in the multiarch directory of this machine.
    static let matrix: String = {
        let lib = URL(fileURLWithPath: "/usr/lib")
        let triplets = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
        return triplets.map { lib.appendingPathComponent("\($0)/pam_wrapper/pam_matrix.so").path }
            .first { FileManager.default.fileExists(atPath: $0) } ?? "/usr/lib/x86_64-linux-gnu/pam_wrapper/pam_matrix.so"
    }()
    /// The password pam_matrix accepts for root in the `stack` service.
    static let password = "matrix-secret"
    static let user = "root"

    let directory: URL

    /// Writes two services: `solo` (only pam_localauth, so its own code is what pamtester reports)
    /// and `stack` (pam_localauth, then pam_matrix for the password), both with `arguments`.
    /// `arguments` are the module's; without them the evaluation may take 60 s instead of the
    /// module's default 10 s, so a test that touches after the prompt is not racing a loaded machine.
    init(bus: PrivateBus, arguments: String = "timeout=60") throws {
        try #require(FileManager.default.fileExists(atPath: Self.module),
                     "\(Self.module) is missing: run `make pam` (or `make test`) before `swift test`")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pam-services-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let module = "\(Self.module) bus=\(bus.address) \(arguments)"
        let passdb = directory.appendingPathComponent("passdb").path
        try "\(Self.user):\(Self.password):stack\n".write(toFile: passdb, atomically: true, encoding: .utf8)
        try "auth required \(module)\n".write(to: directory.appendingPathComponent("solo"), atomically: true, encoding: .utf8)
        try """
            auth [success=done default=ignore] \(module)
            auth required \(Self.matrix) passdb=\(passdb)

            """.write(to: directory.appendingPathComponent("stack"), atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    var environment: [String: String] {
        ProcessInfo.processInfo.environment.merging([
            "LD_PRELOAD": "libpam_wrapper.so:/usr/libexec/coreutils/libstdbuf.so",
            "_STDBUF_O": "L",
            "PAM_WRAPPER": "1",
            "PAM_WRAPPER_SERVICE_DIR": directory.path,
        ]) { $1 }
    }

    /// Starts `pamtester -v SERVICE USER authenticate`; `items` are pamtester's `-I name=value`.
    /// `interruptible`: Foundation starts children with SIGINT blocked, as an application may; this
    /// unblocks it (through python3, then exec) so the test can press Ctrl-C the way a terminal does.
    /// `asNobody`: run it as uid 65534 (setpriv), like a screen locker running as its user.
    func pamtester(_ service: String, user: String = PAMHarness.user, items: [String] = [],
                   interruptible: Bool = false, asNobody: Bool = false) throws -> PAMTester {
        var environment = environment
        // Only pamtester loads pam_wrapper: the wrappers in front of it get it through env.
        let preload = environment.removeValue(forKey: "LD_PRELOAD") ?? ""
        var command = ["/usr/bin/env", "LD_PRELOAD=\(preload)", "/usr/bin/pamtester", "-v"] + items.flatMap { ["-I", $0] } + [service, user, "authenticate"]
        if interruptible {
            command = ["/usr/bin/python3", "-c",
                       "import os, signal, sys; signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT]); os.execv(sys.argv[1], sys.argv[1:])"] + command
        }
        if asNobody { command = ["/usr/bin/setpriv"] + Self.nobody + command }
        return try PAMTester(executable: command[0], arguments: Array(command.dropFirst()), environment: environment)
    }

    static let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]

    /// Runs pamtester to the end with `input` on standard input.
    func run(_ service: String, user: String = PAMHarness.user, input: String = "", items: [String] = [],
             asNobody: Bool = false) async throws -> PAMTester.Result {
        let tester = try pamtester(service, user: user, items: items, asNobody: asNobody)
        tester.write(input)
        tester.closeInput()
        return try await tester.finish()
    }

    /// `pam-as-applicant` as `make pam` builds it, beside the module.
    static var applicantDriver: String {
        URL(fileURLWithPath: module).deletingLastPathComponent().appendingPathComponent("pam-as-applicant").path
    }

    /// Runs one authentication as `su USER` run by `ruid` does (real uid `ruid`, effective uid
    /// root), with `PAM_RUSER` set to `ruser` when given: ``applicantDriver`` stands in for su.
    func runAsApplicant(_ service: String, user: String = PAMHarness.user, ruid: UInt32, ruser: String? = nil,
                        input: String = "") async throws -> PAMTester.Result {
        try #require(FileManager.default.fileExists(atPath: Self.applicantDriver),
                     "\(Self.applicantDriver) is missing: run `make pam` (or `make test`) before `swift test`")
        let tester = try PAMTester(executable: Self.applicantDriver,
                                   arguments: [service, user, String(ruid)] + (ruser.map { [$0] } ?? []), environment: environment)
        tester.write(input)
        tester.closeInput()
        return try await tester.finish(within: .seconds(90))
    }

    /// Runs one authentication through python3-pypamtest, which separates the conversation's
    /// PAM_TEXT_INFO and PAM_ERROR_MSG texts; `passwords` answer PAM_PROMPT_ECHO_OFF in turn.
    func pypamtest(_ service: String, expecting code: Int32, passwords: [String] = []) async throws -> (info: [String], errors: [String]) {
        let script = """
            import json, sys, pypamtest
            case = pypamtest.TestCase(pypamtest.PAMTEST_AUTHENTICATE, expected_rv=\(code))
            result = pypamtest.run_pamtest(\(Self.user.debugDescription), sys.argv[1], [case], json.loads(sys.argv[2]))
            print(json.dumps({"info": list(result.info), "errors": list(result.errors)}))
            """
        let passwordsJSON = String(decoding: try JSONSerialization.data(withJSONObject: passwords), as: UTF8.self)
        let tester = try PAMTester(executable: "/usr/bin/python3", arguments: ["-c", script, service, passwordsJSON], environment: environment)
        tester.closeInput()
        let result = try await tester.finish()
        try #require(result.status == 0, "pypamtest failed (PAM code other than \(code)?): \(result.output)")
        let line = try #require(result.output.split(separator: "\n").last { $0.hasPrefix("{") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: [String]])
        return (object["info"] ?? [], object["errors"] ?? [])
    }
}

/// One pamtester (or python) process: standard output and error merged into lines that can be
/// awaited, standard input written by the test (for pam_matrix's and the passcode prompts).
final class PAMTester: Sendable {
    struct Result: Sendable {
        let status: Int32
        let output: String
    }

    let process: Process
    private let input: FileHandle
    private let exited = Inbox<Int32>()
    private let output: ChildOutput
    var lines: Inbox<String> { output.lines }

    init(executable: String = "/usr/bin/pamtester", arguments: [String], environment: [String: String]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stdout
        input = stdin.fileHandleForWriting
        try process.run()
        ChildProcess.reportExit(of: process, into: exited)
        output = ChildOutput(stdout)
    }

    func write(_ text: String) { ChildProcess.send(Data(text.utf8), to: input) }
    func write(_ data: Data) { ChildProcess.send(data, to: input) }
    func closeInput() { try? input.close() }
    func interrupt() { kill(process.processIdentifier, SIGINT) }

    /// Waits for an output line containing `fragment` (the output so far is in the failure message).
    func waitForLine(containing fragment: String, within timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - ContinuousClock.now
            let line: String
            do {
                line = try await lines.next(within: max(left, .milliseconds(1)))
            } catch {
                Issue.record("no line containing \"\(fragment)\"; output so far:\n\(currentOutput)")
                throw error
            }
            if line.contains(fragment) { return }
        }
    }

    var currentOutput: String { output.text }

    func finish(within timeout: Duration = .seconds(30)) async throws -> Result {
        closeInput()
        let status = try await ChildProcess.exitStatus(of: process, from: exited, within: timeout)
        // As in the CLI tests: another test's child may hold an inherited write end; pamtester's
        // output is all in the pipe once it has exited.
        try? await output.end(within: .seconds(10))
        return Result(status: status, output: currentOutput)
    }

    deinit {
        if process.isRunning { ChildProcess.kill(process) }
    }
}

/// pamtester's last words for each PAM code (`pam_strerror`).
enum PAMOutcome {
    static let success = "successfully authenticated"
    static let authinfoUnavailable = "Authentication service cannot retrieve authentication info"
    static let maxTries = "Have exhausted maximum number of retries for service"
    static let authError = "Authentication failure"
}
