// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A software TPM 2.0 (`swtpm socket --tpm2`) on unix sockets in a fresh directory, for tests of
/// TPM sealing: ``tcti`` is the tpm2-tss TCTI string that reaches it (`tpm_tcti` of localauthd.conf).
///
/// Its state (the owner hierarchy's seed) lives in ``stateDirectory``: two instances are two
/// machines' TPMs, and an instance started again on the same state is the same TPM after a reboot.
/// swtpm runs as a daemon (`--daemon`), which returns once its sockets listen; ``stop()`` shuts it
/// down through its control socket.
public final class Swtpm: Sendable {
    /// Why swtpm tests cannot run here (swtpm or swtpm_ioctl not installed), nil when they can.
    public static let unavailableReason: String? = {
        for tool in [swtpmPath, ioctlPath] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is not installed (Debian: apt-get install swtpm swtpm-tools)"
        }
        return nil
    }()

    static let swtpmPath = "/usr/bin/swtpm"
    static let ioctlPath = "/usr/bin/swtpm_ioctl"

    /// The directory of the TPM's persistent state.
    public let stateDirectory: String
    /// The command socket; the control socket is this path with `.ctrl`.
    public let socket: String
    /// `swtpm:path=<socket>`, for `Tss2_TctiLdr_Initialize` and `tpm_tcti`.
    public var tcti: String { "swtpm:path=\(socket)" }

    /// Starts a TPM on `stateDirectory` (a fresh one, removed by ``stop()``, when nil).
    public init(stateDirectory: String? = nil) async throws {
        if let stateDirectory {
            self.stateDirectory = stateDirectory
        } else {
            var template = Array("/tmp/localauth-swtpm-XXXXXX".utf8CString)
            guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
                throw Failure(message: "mkdtemp failed: \(String(cString: strerror(errno)))")
            }
            self.stateDirectory = String(cString: made)
        }
        ownsState = stateDirectory == nil
        socket = self.stateDirectory + "/swtpm.sock"
        // No --log: swtpm logs each client's disconnection, and a log file in the state directory
        // could be written again while stop() removes the directory.
        let arguments = [
            "socket", "--tpm2",
            "--server", "type=unixio,path=\(socket)",
            "--ctrl", "type=unixio,path=\(socket).ctrl",
            "--tpmstate", "dir=\(self.stateDirectory)",
            "--flags", "not-need-init,startup-clear",
            "--pid", "file=\(self.stateDirectory)/swtpm.pid",
            "--daemon",
        ]
        let status = try await Self.run(Self.swtpmPath, arguments)
        guard status == 0 else {
            throw Failure(message: "swtpm exited with \(status); run it by hand to see why: \(Self.swtpmPath) \(arguments.joined(separator: " "))")
        }
        // The daemon writes its pid file itself, perhaps just after its parent returned.
        let pidFile = self.stateDirectory + "/swtpm.pid"
        var pid: pid_t?
        for _ in 0..<30_000 {
            pid = (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if pid != nil { break }
            try? await Task.sleep(for: .milliseconds(1))
        }
        guard let pid else { throw Failure(message: "swtpm started but wrote no pid file \(pidFile)") }
        self.pid = pid
    }

    /// The swtpm daemon's process.
    public let pid: pid_t

    private let ownsState: Bool

    /// Runs `body` with a TPM started on `stateDirectory` (fresh when nil), stopped when `body`
    /// returns or throws (a `defer` cannot await).
    public static func with<Result>(stateDirectory: String? = nil, _ body: (Swtpm) async throws -> Result) async throws -> Result {
        let tpm = try await Swtpm(stateDirectory: stateDirectory)
        do {
            let result = try await body(tpm)
            await tpm.stop()
            return result
        } catch {
            await tpm.stop()
            throw error
        }
    }

    /// Shuts the TPM down (its state is saved); removes the state directory when ``init(stateDirectory:)`` made it.
    public func stop() async {
        _ = try? await Self.run(Self.ioctlPath, ["--unix", socket + ".ctrl", "-s"])
        // Under load swtpm has been seen to outlive the shutdown command, and it runs with the
        // test process's blocked signals (SIGTERM among them): SIGKILL is sure. Then its end is
        // awaited (bounded), so that its lock on the state is gone before another swtpm takes it.
        if isRunning { kill(pid, SIGKILL) }
        for _ in 0..<30_000 where isRunning { try? await Task.sleep(for: .milliseconds(1)) }
        if ownsState { try? FileManager.default.removeItem(atPath: stateDirectory) }
    }

    /// Whether ``pid`` is still this swtpm (not gone, not a zombie, not a reused pid).
    var isRunning: Bool {
        guard let commandLine = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        return String(decoding: commandLine, as: UTF8.self).contains(socket)
    }

    public struct Failure: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// Runs a tool with its output discarded (a daemon keeps no pipe of ours open) and returns its exit status.
    static func run(_ path: String, _ arguments: [String]) async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let exited = Inbox<Int32>()
        try process.run()
        ChildProcess.reportExit(of: process, into: exited)
        return try await ChildProcess.exitStatus(of: process, from: exited, within: .seconds(60))
    }
}
