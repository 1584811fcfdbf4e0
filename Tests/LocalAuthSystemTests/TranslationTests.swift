// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthCore
import LocalAuthSystem
import Testing

/// po/: the template holds every message of ``MessageCatalog`` and nothing else, and each shipped
/// language (po/LANG.po, compiled as `make locale` does) translates every one with the same
/// placeholders.
@Suite("Translations (po/)", .timeLimit(.minutes(1)))
final class TranslationTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let po = repository.appendingPathComponent("po")
    let temporary: TemporaryDirectory

    init() throws { temporary = try TemporaryDirectory() }
    deinit { temporary.remove() }

    static var shippedLanguages: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: po.path)) ?? []).filter { $0.hasSuffix(".po") }.map { String($0.dropLast(3)) }.sorted()
    }

    /// The `msgid`s of a .po or .pot file (the header's empty one left out), unescaped.
    static func messageIDs(_ text: String) -> [String] {
        var ids: [String] = [], current: String?
        func unquoted(_ line: Substring) -> String {
            var result = "", escaped = false
            for character in line.dropFirst().dropLast() {
                if escaped { result.append(character == "n" ? "\n" : character == "t" ? "\t" : character); escaped = false }
                else if character == "\\" { escaped = true } else { result.append(character) }
            }
            return result
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("msgid \"") {
                current = unquoted(line.dropFirst(6))
            } else if line.hasPrefix("\""), current != nil {
                current! += unquoted(line)
            } else if let id = current {
                if !id.isEmpty { ids.append(id) }
                current = nil
            }
        }
        return ids
    }

    @Test func theTemplateHoldsEveryMessageOfTheCatalog() throws {
        let template = try String(contentsOf: Self.po.appendingPathComponent("localauthd.pot"), encoding: .utf8)
        let ids = Self.messageIDs(template)
        #expect(ids.count == Set(ids).count, "a message twice in po/localauthd.pot")
        #expect(Set(ids) == Set(MessageCatalog.messages),
                "po/localauthd.pot differs from MessageCatalog.messages: missing \(Set(MessageCatalog.messages).subtracting(ids)), extra \(Set(ids).subtracting(MessageCatalog.messages))")
        for id in ids where !MessageCatalog.placeholders(in: id).isEmpty {
            #expect(template.contains("#, c-format\nmsgid \"\(id.replacingOccurrences(of: "\"", with: "\\\""))\""), "\(id) is not marked c-format, so msgfmt --check would not compare its placeholders")
        }
    }

    @Test func germanAndFrenchAreShipped() {
        #expect(Set(Self.shippedLanguages).isSuperset(of: ["de", "fr"]), "\(Self.shippedLanguages)")
    }

    @Test(arguments: shippedLanguages) func everyMessageIsTranslatedWithItsPlaceholders(language: String) async throws {
        let directory = "\(temporary.path)/locale/\(language)/LC_MESSAGES"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let compiled = try await Msgfmt.run(["--check", "-o", "\(directory)/localauthd.mo", Self.po.appendingPathComponent("\(language).po").path])
        #expect(compiled.status == 0, "msgfmt --check po/\(language).po: \(compiled.output)")
        let table = try #require(try MessageCatalogFile.read("\(directory)/localauthd.mo"))
        for message in MessageCatalog.messages {
            let translation = try #require(table[message], "po/\(language).po does not translate \"\(message)\"")
            #expect(!translation.isEmpty && translation != message, "po/\(language).po: \"\(message)\" is left in English")
            #expect(MessageCatalog.placeholders(in: translation) == MessageCatalog.placeholders(in: message),
                    "po/\(language).po: the placeholders of \"\(translation)\" differ from \"\(message)\"")
        }
        // The daemon's catalog keeps every one of them (it drops translations whose placeholders differ).
        let loaded = MessageCatalogFile.load(directory: "\(temporary.path)/locale")
        #expect(loaded.problems.isEmpty, "\(loaded.problems)")
        #expect(loaded.catalog.translations[language]?.count == MessageCatalog.messages.count)
    }
}
