// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

private typealias P = ReferenceProvider

/// `localauth backends` and `status` show what a provider says about itself (its description and
/// version): a provider that answers Hello with terminal controls cannot rewrite the terminal.
@Suite("localauth: provider text on the terminal", .timeLimit(.minutes(2)))
struct ProviderTextTests {
    /// Python string literals put into the reference provider's Hello.
    static let description = #""Evil\x1b[2K\rfake-line\nnext line\u202eend\x9b2J""#
    static let version = #""6.6\x1b]0;owned\x07""#

    @Test func aProvidersDescriptionAndVersionReachBackendsAndStatusWithoutTerminalControls() async throws {
        let provider = try ReferenceProvider()
        // The reference provider, with a Hello that carries terminal controls.
        let script = "\(provider.stateDirectory)-evil-provider.py"
        let original = try String(contentsOfFile: P.script, encoding: .utf8)
        let evil = original
            .replacingOccurrences(of: #""Reference %s provider (simulated sensor)" % self.sensor.modality"#, with: Self.description)
            .replacingOccurrences(of: #"VERSION = "1.0.0""#, with: "VERSION = \(Self.version)")
        #expect(evil.contains(Self.description) && evil.contains(Self.version), "the reference provider changed: update this test")
        try evil.write(toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        let descriptor = "\(provider.directory)/\(provider.id).provider"
        try String(contentsOfFile: descriptor, encoding: .utf8).replacingOccurrences(of: P.script, with: script)
            .write(toFile: descriptor, atomically: true, encoding: .utf8)

        try await withDaemon(configuration: provider.configuration()) { _, bus in
            let client = try await Client(bus)
            try await P.waitForBackend(provider.id, on: client.connection, within: .seconds(60)) { $0 == "available" }
            for command in [["backends"], ["status"]] {
                let result = try await CommandLineTool.run(bus, command, timeout: .seconds(60))
                #expect(result.status == 0, "\(result.stderr)")
                let shown = result.stdout
                #expect(!shown.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x0D || $0.value == 0x07 || $0.value == 0x9B },
                        "raw controls in \(command): \(shown.debugDescription)")
                #expect(!shown.unicodeScalars.contains { $0.value == 0x202E }, "a bidi override in \(command): \(shown.debugDescription)")
                #expect(shown.contains(#"6.6\x1b]0;owned\x07"#), "the version, visibly: \(shown)")
                #expect(!shown.split(separator: "\n").contains { $0.hasPrefix("next line") }, "the description started a line: \(shown)")
                if command == ["backends"] {
                    #expect(shown.contains(#"Evil\x1b[2K\x0dfake-line\x0anext line\u{202e}end\x9b2J"#), "the description, visibly: \(shown)")
                }
            }
            let json = try await CommandLineTool.run(bus, ["--json", "backends"], timeout: .seconds(60))
            let backends = json.json["backends"] as? [[String: Any]] ?? []
            #expect(backends.contains { $0["version"] as? String == "6.6\u{1b}]0;owned\u{7}" }, "JSON keeps the provider's own text: \(json.stdout)")
        }
    }
}
