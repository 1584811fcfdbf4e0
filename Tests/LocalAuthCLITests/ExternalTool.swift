// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthTestSupport

/// Any program run to the end with its output collected: `man`, `bash`, `script`, the daemon.
enum ExternalTool {
    struct Result: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The repository's root, for the files the tests check (man/, completion/, config/).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func file(_ relativePath: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(relativePath), encoding: .utf8)
    }

    /// Runs `executable` (a path, or a name looked up in /usr/bin and /bin) with `environment` on top of ours,
    /// with no signals blocked, as from a shell. Output goes to temporary files, so neither pipe can
    /// fill up and stall the child.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                    directory: URL? = nil, timeout: Duration = .seconds(60)) async throws -> Result {
        let path = executable.hasPrefix("/") ? executable
            : ["/usr/bin/", "/bin/"].map { $0 + executable }.first { FileManager.default.isExecutableFile(atPath: $0) } ?? executable
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("external-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out"), err = scratch.appendingPathComponent("err")
        for file in [out, err] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let exited = Inbox<Int32>()
        try ChildProcess.run(process)
        ChildProcess.reportExit(of: process, into: exited)
        let status = try await ChildProcess.exitStatus(of: process, from: exited, within: timeout)
        return Result(status: status, stdout: try String(contentsOf: out, encoding: .utf8),
                      stderr: try String(contentsOf: err, encoding: .utf8))
    }
}
