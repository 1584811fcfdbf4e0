// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthBackends
import LocalAuthCore
import LocalAuthSystem
import LocalAuthTestSupport
import Testing

/// What docs/providers.md promises a vendor, held to the code: the descriptor format reference is
/// the parser's table, its examples parse, its quickstart runs as written, and a refused descriptor
/// leaves localauthd running without that provider.
@Suite("Provider docs")
struct ProviderDocsTests {
    static let docs = ReferenceProvider.repositoryRoot.appendingPathComponent("docs/providers.md").path

    static func text() throws -> String { try String(contentsOfFile: docs, encoding: .utf8) }

    /// The first fenced block of `language` after the heading line `heading`.
    static func block(_ language: String, after heading: String) throws -> String {
        let text = try text()
        let section = try #require(text.range(of: "\n\(heading)\n"), "no heading \(heading)")
        let start = try #require(text.range(of: "```\(language)\n", range: section.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        // The block may be indented (inside a list item): drop the fence's indentation.
        let indentation = text[text[..<start.lowerBound].lastIndex(of: "\n").map { text.index(after: $0) }!..<start.lowerBound]
        return text[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(indentation) ? String($0.dropFirst(indentation.count)) : String($0) }.joined(separator: "\n")
    }

    @Test func theFormatReferenceIsTheParsersTableOfKeys() throws {
        let text = try Self.text()
        let table = try #require(text.range(of: "<!-- The rows follow ProviderDescriptor.keys"))
        let rows = text[table.upperBound...].split(separator: "\n").drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }.dropFirst(2)
        let expected = ProviderDescriptor.keys.map { key in
            "| `\(key.name)` | \(key.type) | \(key.defaultValue ?? "required") | \(key.meaning) |"
        }
        #expect(rows.map(String.init) == expected)
    }

    @Test func theExampleDescriptorsParse() throws {
        let builtIn = BackendRegistry.builtIn.ids
        let example = try ProviderDescriptor.parse(try Self.block("ini", after: "## Writing, installing and enabling a provider"),
                                                   path: "/usr/lib/localauthd/providers/acme.provider", builtIn: builtIn, resolveUser: { _ in 4242 })
        #expect(example.id == "acme" && example.busName == "com.acme.Fingerprint" && example.exec == nil && example.uid == 4242)
        let reference = try String(contentsOf: ReferenceProvider.repositoryRoot.appendingPathComponent("Examples/providers/reference.provider"), encoding: .utf8)
        let parsed = try ProviderDescriptor.parse(reference, path: "/usr/lib/localauthd/providers/reference.provider", builtIn: builtIn,
                                                  resolveUser: { $0 == "localauth-reference" ? 4243 : nil })
        #expect(parsed.busName == "org.localauth.Provider.Reference" && parsed.uid == 4243)
    }

    @Test func anInlineCommentIsRefusedWithItsLineButADescriptionMayHoldAHash() throws {
        let text = "[Provider]\nId=acme  # the id\nModality=face\nBusName=com.acme.Face\nUser=0\nProtocolVersion=1\n"
        do {
            _ = try ProviderDescriptor.parse(text, path: "/x/acme.provider", builtIn: BackendRegistry.builtIn.ids)
            Issue.record("an inline comment was accepted")
        } catch {
            #expect(error.description == "/x/acme.provider:2: inline comments are not allowed: put the comment on its own line")
        }
        let described = try ProviderDescriptor.parse(text.replacingOccurrences(of: "  # the id", with: "") + "Description=ACME camera #2\n",
                                                     path: "/x/acme.provider", builtIn: BackendRegistry.builtIn.ids)
        #expect(described.description == "ACME camera #2")
    }

    @Test("a refused descriptor leaves localauthd running without that provider, and logged", arguments: [
        ("ProtocolVersion=1", "ProtocolVersion=1  # major", "reference.provider:7: inline comments are not allowed"),
        ("User=\(getuid())", "User=no-such-user-here", "reference.provider:6: User: no user \"no-such-user-here\""),
    ])
    func aRefusedDescriptorDoesNotStopTheDaemon(original: String, replacement: String, reason: String) async throws {
        let provider = try ReferenceProvider()
        let path = "\(provider.directory)/reference.provider"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(original))
        try text.replacingOccurrences(of: original, with: replacement).write(toFile: path, atomically: true, encoding: .utf8)
        try await withDaemon(configuration: provider.configuration()) { daemon, bus in
            let client = try await Client(bus)
            #expect(try await ReferenceProvider.backendState("reference", on: client.connection) == nil)
            #expect(try await ReferenceProvider.backendState("passcode", on: client.connection) == "available")
            #expect(daemon.logText.contains("provider reference: not started, its descriptor is refused: "), "\(daemon.logText)")
            #expect(daemon.logText.contains(reason), "\(daemon.logText)")
        }
    }

    /// A second provider of a modality already taken is refused the same way: the first stays,
    /// the second is left out of `backends` with why.
    @Test func aSecondProviderOfATakenModalityIsLeftOut() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("provider-docs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for (id, bus) in [("acme", "com.acme.Face"), ("other", "com.other.Face")] {
            try "[Provider]\nId=\(id)\nModality=face\nBusName=\(bus)\nUser=0\nProtocolVersion=1\n"
                .write(toFile: "\(root)/\(id).provider", atomically: true, encoding: .utf8)
        }
        try "backends = acme, other, passcode\nprovider_directories = \(root)\n".write(toFile: "\(root)/localauthd.conf", atomically: true, encoding: .utf8)
        let loaded = try ConfigurationLoader.loadResolvingNames(path: "\(root)/localauthd.conf", builtIn: BackendRegistry.builtIn.ids)
        #expect(loaded.providers.map(\.id) == ["acme"] && loaded.configuration.backends == ["acme", "passcode"])
        #expect(loaded.skippedProviders.map(\.id) == ["other"])
        #expect(loaded.skippedProviders.first?.error.description == "\(root)/other.provider: providers acme and other are both face sensors; enable only one")
    }

    /// The quickstart's shell block, run as written from the checkout's root: a private bus,
    /// `provider check`, localauthd with the reference provider, an enrollment and an evaluation
    /// by simulated touches; its EXIT trap then ends the bus and localauthd (``runTool`` starts
    /// bash with no signal blocked, or the trap's `kill` left the `--fork`ed bus running forever).
    @Test func theQuickstartRunsAsWritten() async throws {
        let script = try Self.block("sh", after: "## Quickstart on a private bus")
        let root = ReferenceProvider.repositoryRoot.path
        let binaries = URL(fileURLWithPath: DaemonUnderTest.binary).deletingLastPathComponent().path
        let path = "\(binaries):\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")"
        let mark = ProcessMark()
        let (status, output) = try await runTool("/bin/bash", ["-e", "-o", "pipefail", "-c", "cd \"$1\"\n" + script, "quickstart", root],
                                                 environment: ["PATH": path].merging(mark.environment) { $1 }, timeout: .seconds(300))
        #expect(status == 0, "\(output)")
        #expect(output.contains("All steps passed.") && output.contains("Enrolled fingerprint right-index-finger.")
                && output.contains("Authenticated."), "\(output)")
        let left = await mark.leftovers()
        #expect(left.isEmpty, "left behind by the quickstart: \(left)")
    }
}
