// SPDX-License-Identifier: Apache-2.0
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Finds every process a command or script started, however far it went (a `dbus-daemon --fork`
/// that left its parent and process group, a child reparented to init): the test puts a variable
/// of its own into the program's environment, every descendant inherits it, and /proc shows it.
/// For checking that nothing a program started outlives it.
public struct ProcessMark: Sendable {
    public static let variable = "LOCALAUTH_TEST_PROCESS_MARK"
    public let value = UUID().uuidString

    public init() {}

    /// To add to the environment of the program under test.
    public var environment: [String: String] { [Self.variable: value] }

    /// The live processes that carry the mark (a zombie's environment reads empty), as `pid command line`.
    public func processes() -> [(pid: pid_t, command: String)] {
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid_t($0) }
        return pids.filter(isMarked).map { pid in
            let arguments = Self.read("/proc/\(pid)/cmdline").split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return (pid, arguments.joined(separator: " "))
        }
    }

    /// The marked processes still there after `grace` (a script may signal its children and exit
    /// without waiting for them), each then killed (SIGKILL), so a failing test leaves nothing behind.
    public func leftovers(after grace: Duration = .seconds(5)) async -> [String] {
        let deadline = ContinuousClock.now + grace
        var left = processes()
        while !left.isEmpty, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(100))
            left = processes()
        }
        for process in left where isMarked(process.pid) { kill(process.pid, SIGKILL) }
        return left.map { "\($0.pid) \($0.command)" }
    }

    private func isMarked(_ pid: pid_t) -> Bool {
        let entry = Array("\(Self.variable)=\(value)".utf8)
        return Self.read("/proc/\(pid)/environ").split(separator: 0).contains { $0.elementsEqual(entry) }
    }

    /// A /proc file (its size reads as 0, so to the end); empty when it cannot be read.
    private static func read(_ path: String) -> Data {
        guard let file = FileHandle(forReadingAtPath: path) else { return Data() }
        defer { try? file.close() }
        return (try? file.readToEnd()) ?? Data()
    }
}
