// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthTestSupport
import Testing

/// gettext's `msgfmt`, as `make locale` runs it.
enum Msgfmt {
    /// Compiles `po` to `output`; its status and what it printed.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/msgfmt")
        process.arguments = arguments
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("msgfmt-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = process.standardOutput
        let exited = Inbox<Int32>()
        try process.run()
        ChildProcess.reportExit(of: process, into: exited)
        let status = try await ChildProcess.exitStatus(of: process, from: exited, within: .seconds(60))
        return (status, try String(contentsOf: log, encoding: .utf8))
    }
}
