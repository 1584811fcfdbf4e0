// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthCore
import LocalAuthSystem
import Testing

/// GNU .mo files as msgfmt writes them, in both byte orders; anything malformed is refused whole,
/// so that language falls back to English.
@Suite("Message catalog files (.mo)", .timeLimit(.minutes(1)))
final class MessageCatalogFileTests {
    let temporary: TemporaryDirectory

    init() throws { temporary = try TemporaryDirectory() }
    deinit { temporary.remove() }

    static let po = """
        msgid ""
        msgstr ""
        "Content-Type: text/plain; charset=UTF-8\\n"

        msgid "Go on."
        msgstr "Bitte fortfahren."

        #, c-format
        msgid "Allow “%s” to use Face ID?"
        msgstr "Darf „%s“ Face ID verwenden?"

        msgctxt "button"
        msgid "Go on."
        msgstr "Weiter"

        msgid "one"
        msgid_plural "many"
        msgstr[0] "eins"
        msgstr[1] "viele"

        """

    /// msgfmt's output for `po` (little-endian on this machine).
    func compiled(_ po: String = po, endianness: String = "little") async throws -> [UInt8] {
        let source = "\(temporary.path)/in.po", output = "\(temporary.path)/out-\(endianness).mo"
        try po.write(toFile: source, atomically: true, encoding: .utf8)
        let result = try await Msgfmt.run(["--endianness=\(endianness)", "-o", output, source])
        try #require(result.status == 0, "msgfmt: \(result.output)")
        return Array(try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    static let expected = ["Go on.": "Bitte fortfahren.", "Allow “%s” to use Face ID?": "Darf „%s“ Face ID verwenden?"]

    @Test(arguments: ["little", "big"]) func readsBothByteOrdersLeavingOutContextsAndPlurals(endianness: String) async throws {
        let bytes = try await compiled(endianness: endianness)
        #expect(Array(bytes.prefix(4)) == (endianness == "little" ? [0xDE, 0x12, 0x04, 0x95] : [0x95, 0x04, 0x12, 0xDE]))
        #expect(try MessageCatalogFile.parse(bytes) == Self.expected)
    }

    @Test func everyTruncationIsRefusedNeverACrash() async throws {
        let bytes = try await compiled()
        for length in 0..<bytes.count - 1 where (try? MessageCatalogFile.parse(Array(bytes.prefix(length)))) == Self.expected {
            Issue.record("a file cut to \(length) of \(bytes.count) bytes was read whole")
        }
        #expect(throws: MessageCatalogFile.Failure.self) { try MessageCatalogFile.parse(Array(bytes.prefix(20))) }
    }

    @Test func offsetsOutsideTheFileAreRefused() async throws {
        var bytes = try await compiled()
        let originals = Int(bytes[12]) | Int(bytes[13]) << 8
        // The first message's offset, little-endian, pointed past the end.
        bytes.replaceSubrange(originals + 4..<originals + 8, with: [0xF0, 0xFF, 0xFF, 0x7F])
        #expect(throws: MessageCatalogFile.Failure.self) { try MessageCatalogFile.parse(bytes) }
        var count = try await compiled()
        count.replaceSubrange(8..<12, with: [0xFF, 0xFF, 0xFF, 0x0F])
        #expect(throws: MessageCatalogFile.Failure.self) { try MessageCatalogFile.parse(count) }
    }

    @Test func aHeaderWithoutUTF8IsRefused() async throws {
        let latin = Self.po.replacingOccurrences(of: "charset=UTF-8", with: "charset=ASCII").replacingOccurrences(of: "“", with: "\"")
            .replacingOccurrences(of: "”", with: "\"").replacingOccurrences(of: "„", with: "\"")
            .replacingOccurrences(of: "\"%s\"", with: "\\\"%s\\\"")
        let bytes = try await compiled(latin)
        #expect(throws: MessageCatalogFile.Failure.self) { try MessageCatalogFile.parse(bytes) }
    }

    @Test func aDirectoryOfLanguagesLoadsEachAndABadFileFallsBackToEnglish() async throws {
        let good = try await compiled()
        for (language, bytes) in [("de", good), ("fr", [UInt8](repeating: 0x41, count: 64))] {
            let directory = "\(temporary.path)/locale/\(language)/LC_MESSAGES"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: "\(directory)/localauthd.mo"))
        }
        let loaded = MessageCatalogFile.load(directory: "\(temporary.path)/locale")
        #expect(loaded.languages == ["de"])
        #expect(loaded.problems.count == 1 && loaded.problems[0].contains("fr/LC_MESSAGES/localauthd.mo") && loaded.problems[0].contains("falls back to English"),
                "\(loaded.problems)")
        #expect(loaded.catalog.ready(MessageCatalog.Language(locale: "de_AT.UTF-8")) == "Bitte fortfahren.")
        #expect(loaded.catalog.ready(MessageCatalog.Language(locale: "fr_FR.UTF-8")) == "Go on.")
        #expect(MessageCatalogFile.load(directory: "\(temporary.path)/none").languages == [])
    }
}
