// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthTestSupport
import Testing

/// What the daemon and the demo write for people: readable bus names, no priority prefixes on a
/// terminal, no escape sequences in files.
@Suite("daemon and demo output", .timeLimit(.minutes(2)))
struct DaemonMessageTests {
    @Test func unreachableBusIsNamedLikeAnAddressNotASwiftValue() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let result = try await ExternalTool.run(DaemonUnderTest.binary, ["--address", "unix:path=/nonexistent/bus", "--state-dir", state.path,
                                                                    "--config", "/dev/null"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("cannot connect to the bus at unix:path=/nonexistent/bus"), "\(result.stderr)")
        #expect(!result.stderr.contains("address("), "\(result.stderr)")
    }

    @Test func noPriorityPrefixesOnATerminal() async throws {
        try await withPrivateBus { bus in
            let state = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: state) }
            // script(1) gives the daemon a terminal as stderr; --idle-exit ends it after its start-up lines.
            let command = [DaemonUnderTest.binary, "--address", "'\(bus.address)'", "--state-dir", state.path, "--config", "/dev/null",
                           "--idle-exit", "0.5"].joined(separator: " ")
            let result = try await ExternalTool.run("script", ["-qefc", command, "/dev/null"], environment: ["JOURNAL_STREAM": ""])
            let lines = result.stdout.split(whereSeparator: \.isNewline)
            #expect(lines.contains { $0.hasPrefix("localauthd 1.0.0: serving") || $0.contains("serving org.localauth") }, "\(lines)")
            #expect(!lines.contains { $0.hasPrefix("<") }, "priority prefixes on a terminal: \(lines)")
        }
    }

    /// The demo also cleans up after itself: its bus and daemon end with it.
    @Test func demoWritesNoEscapeSequencesIntoAFile() async throws {
        let bin = URL(fileURLWithPath: DaemonUnderTest.binary).deletingLastPathComponent().path
        let mark = ProcessMark()
        let result = try await ExternalTool.run(ExternalTool.repository.appendingPathComponent("scripts/demo.sh").path, [],
                                          environment: ["BIN": bin].merging(mark.environment) { $1 })
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("# ") && !result.stdout.contains("\u{1B}"), "escape sequences in the demo's file output")
        let left = await mark.leftovers()
        #expect(left.isEmpty, "left behind by the demo: \(left)")
    }
}
