// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import LocalAuthCore

/// Reads gettext's compiled catalogs (GNU `.mo` files, as `msgfmt` writes them from `po/LANG.po`)
/// into a ``MessageCatalog``: `DIRECTORY/LANG/LC_MESSAGES/localauthd.mo` for each language.
///
/// A `.mo` file is parsed here rather than through libintl, which would take the language from the
/// daemon's own locale; the daemon needs every language at once, chosen per agent. Both byte orders
/// are read; every offset and length is checked against the file; the header must say UTF-8. A
/// file that fails any check is left out whole (that language falls back to English) and named in
/// ``Loaded/problems``.
public enum MessageCatalogFile {
    /// The gettext domain: `localauthd.mo`.
    public static let domain = "localauthd"
    /// Larger files are refused (ours are a few KiB).
    static let sizeLimit = 1 << 20

    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// What ``load(directory:)`` found.
    public struct Loaded: Sendable {
        public let catalog: MessageCatalog
        /// The languages read, sorted.
        public let languages: [String]
        /// One line per file left out, saying why.
        public let problems: [String]
    }

    /// Where the installation keeps its catalogs: `PREFIX/share/locale` for a daemon installed as
    /// `PREFIX/libexec/localauthd` (or `PREFIX/sbin`, `PREFIX/bin`); in a build tree (`.build/…/localauthd`)
    /// `.build/locale`, where `make locale` puts them.
    public static var defaultDirectory: String? {
        guard let executable = executablePath() else { return nil }
        let parts = executable.split(separator: "/")
        if let build = parts.lastIndex(of: ".build") {
            return "/" + parts[...build].joined(separator: "/") + "/locale"
        }
        guard parts.count >= 2 else { return nil }
        let prefix = parts.dropLast(2).joined(separator: "/")
        return "/" + prefix + (prefix.isEmpty ? "" : "/") + "share/locale"
    }

    /// Every language that has `LANG/LC_MESSAGES/localauthd.mo` in `directory`. A missing
    /// directory means English only, without a problem.
    public static func load(directory: String) -> Loaded {
        guard let stream = opendir(directory) else {
            return Loaded(catalog: MessageCatalog(), languages: [], problems: [])
        }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if isLanguageName(name) { names.append(name) }
        }
        closedir(stream)
        var translations: [String: [String: String]] = [:]
        var problems: [String] = []
        for name in names.sorted() {
            let path = "\(directory)/\(name)/LC_MESSAGES/\(domain).mo"
            do throws(Failure) {
                guard let table = try read(path) else { continue }
                translations[MessageCatalog.Language(locale: name).code, default: [:]].merge(table) { first, _ in first }
            } catch {
                problems.append("\(path): \(error.message); \(name) falls back to English")
            }
        }
        return Loaded(catalog: MessageCatalog(translations: translations), languages: translations.keys.sorted(), problems: problems)
    }

    /// The translations in the `.mo` file at `path`; nil when there is no such file.
    public static func read(_ path: String) throws(Failure) -> [String: String]? {
        let bytes: [UInt8]?
        do throws(AtomicFile.Failure) { bytes = try AtomicFile.read(path, limit: sizeLimit) } catch {
            throw Failure(message: error.message)
        }
        guard let bytes else { return nil }
        return try parse(bytes)
    }

    /// The translations in a `.mo` file's bytes: message id → translation, without the header
    /// (the empty id), plural forms and messages with a context (the daemon uses neither).
    public static func parse(_ bytes: [UInt8]) throws(Failure) -> [String: String] {
        guard bytes.count >= 28 else { throw Failure(message: "too short for a .mo header (\(bytes.count) bytes)") }
        let bigEndian: Bool
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0xDE, 0x12, 0x04, 0x95): bigEndian = false
        case (0x95, 0x04, 0x12, 0xDE): bigEndian = true
        default: throw Failure(message: "not a GNU .mo file (bad magic number)")
        }
        func word(_ offset: Int) throws(Failure) -> Int {
            guard offset >= 0, offset <= bytes.count - 4 else { throw Failure(message: "an offset points outside the file") }
            let value = bytes[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return Int(bigEndian ? value : value.byteSwapped)
        }
        let revision = try word(4)
        guard revision >> 16 <= 1 else { throw Failure(message: "unknown .mo revision \(revision >> 16)") }
        let count = try word(8), originals = try word(12), translated = try word(16)
        guard count <= (bytes.count - 28) / 16 else { throw Failure(message: "more messages (\(count)) than the file can hold") }
        func string(table: Int, index: Int) throws(Failure) -> [UInt8] {
            let length = try word(table + index * 8), offset = try word(table + index * 8 + 4)
            // gettext writes a NUL after each string; it is not part of the length.
            guard offset < bytes.count, length < bytes.count - offset, bytes[offset + length] == 0 else {
                throw Failure(message: "message \(index) lies outside the file")
            }
            return Array(bytes[offset..<offset + length])
        }
        var table: [String: String] = [:]
        table.reserveCapacity(count)
        for index in 0..<count {
            let idBytes = try string(table: originals, index: index), textBytes = try string(table: translated, index: index)
            guard let id = String(validating: idBytes, as: UTF8.self), let text = String(validating: textBytes, as: UTF8.self) else {
                throw Failure(message: "message \(index) is not UTF-8")
            }
            if id.isEmpty {
                guard header(text, says: "charset=UTF-8") else { throw Failure(message: "its header does not say charset=UTF-8") }
                continue
            }
            // Plural forms hold a NUL, messages with a context an EOT (U+0004).
            if idBytes.contains(0) || idBytes.contains(4) { continue }
            table[id] = text
        }
        return table
    }

    /// Whether the header's Content-Type line holds `value`, both compared in ASCII lower case (a
    /// header is ASCII; Unicode lower-casing each line was ~7 % of the daemon's start-up).
    private static func header(_ header: String, says value: String) -> Bool {
        func lowered(_ text: some Sequence<UInt8>) -> [UInt8] {
            text.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }
        }
        let wanted = lowered(value.utf8), prefix = Array("content-type:".utf8)
        return lowered(header.utf8).split(separator: UInt8(ascii: "\n")).contains { line in
            guard line.starts(with: prefix), line.count >= wanted.count else { return false }
            return (line.startIndex...(line.endIndex - wanted.count)).contains { line[$0..<$0 + wanted.count].elementsEqual(wanted) }
        }
    }

    /// A directory name gettext would use for a language: `de`, `fr`, `pt_BR`, `sr@latin`.
    private static func isLanguageName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isLowercase, name.utf8.count <= 32 else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || "_@.-0123456789".unicodeScalars.contains($0)) }
    }

    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
