import Foundation
import LocalAuthTestSupport
import Synchronization

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
        let stdoutLines = Inbox<String>()
        let stderrLines = Inbox<String>()
        private let exited = Inbox<Int32>()
        /// One element per output pipe that reached end of file.
        private let closed = Inbox<Bool>()
        /// Kept so their file descriptors stay open while the reader threads use them.
        private let pipes: [Pipe]
        private let buffers = Mutex<(out: Data, err: Data)>((Data(), Data()))

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
            pipes = [output, error]
            try process.run()
            ChildProcess.reportExit(of: process, into: exited)
            // A blocking reader thread per pipe (FileHandle.readabilityHandler is not reliable here).
            for (pipe, isOut) in [(output, true), (error, false)] {
                let fd = pipe.fileHandleForReading.fileDescriptor
                Thread.detachNewThread { [self] in
                    var chunk = [UInt8](repeating: 0, count: 4096)
                    var partial: [UInt8] = []
                    while true {
                        let count = read(fd, &chunk, chunk.count)
                        if count < 0, errno == EINTR { continue }
                        guard count > 0 else { break }
                        let data = Data(chunk[..<count])
                        self.buffers.withLock { if isOut { $0.out.append(data) } else { $0.err.append(data) } }
                        partial += chunk[..<count]
                        while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
                            let line = String(decoding: partial[..<newline], as: UTF8.self)
                            partial.removeSubrange(...newline)
                            (isOut ? self.stdoutLines : self.stderrLines).put(line)
                        }
                    }
                    self.closed.put(isOut)
                }
            }
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        }

        func interrupt() { kill(process.processIdentifier, SIGINT) }

        func finish(within timeout: Duration = .seconds(20)) async throws -> Result {
            let status = try await ChildProcess.exitStatus(of: process, from: exited, within: timeout)
            // The pipes reach end of file when the process exits.
            for _ in 0..<2 { _ = try await closed.next(within: .seconds(5)) }
            return buffers.withLock { Result(status: status, stdout: String(decoding: $0.out, as: UTF8.self),
                                              stderr: String(decoding: $0.err, as: UTF8.self)) }
        }
    }
}
