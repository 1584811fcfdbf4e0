// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthTestSupport

/// The real `localauth` binary, run the way a script runs it: arguments, standard input, output.
enum CommandLineTool {
    /// The daemon's configuration for CLI tests: simulator input is queued by separate CLI
    /// processes, which can take longer than the default 10 s TTL on a loaded machine.
    static let daemonConfiguration = "simulator_event_ttl = 600\n"

    /// Next to the test bundle, like `DaemonUnderTest.binary`.
    static var binary: String {
        URL(fileURLWithPath: DaemonUnderTest.binary).deletingLastPathComponent().appendingPathComponent("localauth").path
    }

    struct Result: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String

        /// stdout as one JSON object.
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any] ?? [:]
        }
    }

    /// Runs `localauth --address BUS arguments…` to the end (killed after `timeout`); `environment`
    /// entries are set on top of the test's own environment.
    static func run(_ bus: PrivateBus?, _ arguments: [String], stdin: String = "", environment: [String: String] = [:],
                    timeout: Duration = .seconds(20)) async throws -> Result {
        let running = try Running(bus, arguments, stdin: stdin, environment: environment)
        return try await running.finish(within: timeout)
    }

    /// A `localauth` process whose output lines can be awaited while it runs.
    final class Running: Sendable {
        let process: Process
        private let exited = Inbox<Int32>()
        private let stdout: ChildOutput
        private let stderr: ChildOutput
        var stdoutLines: Inbox<String> { stdout.lines }
        var stderrLines: Inbox<String> { stderr.lines }

        init(_ bus: PrivateBus?, _ arguments: [String], stdin: String = "", environment: [String: String] = [:]) throws {
            process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLineTool.binary)
            if !environment.isEmpty {
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            }
            process.arguments = (bus.map { ["--address", $0.address] } ?? []) + arguments
            let input = Pipe(), output = Pipe(), error = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = error
            try process.run()
            ChildProcess.reportExit(of: process, into: exited)
            stdout = ChildOutput(output)
            stderr = ChildOutput(error)
            ChildProcess.send(stdin, to: input)
            try input.fileHandleForWriting.close()
        }

        func interrupt() { kill(process.processIdentifier, SIGINT) }

        func finish(within timeout: Duration = .seconds(20)) async throws -> Result {
            let status = try await ChildProcess.exitStatus(of: process, from: exited, within: timeout)
            // The pipes reach end of file when the process exits, unless a child that another
            // test spawned at that moment inherited a write end and still holds it. Everything our
            // child wrote is in the pipe once it has exited, so the text read by then is complete.
            try? await stdout.end(within: .seconds(10))
            try? await stderr.end(within: .seconds(10))
            return Result(status: status, stdout: stdout.text, stderr: stderr.text)
        }
    }
}
