// SPDX-License-Identifier: Apache-2.0

/// The `KEY=value` lines logind writes under /run/systemd, read the way libsystemd's
/// `parse_env_file` reads them: blank lines and `#`/`;` comments skipped, whitespace around keys
/// and unquoted values dropped, `"…"` and `'…'` quoting and backslash escapes undone; a key set
/// twice keeps its last value.
struct EnvironmentFile: Sendable {
    private var values: [String: String] = [:]

    init(_ text: String) {
        for line in text.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard let first = trimmed.first, first != "#", first != ";", let equals = trimmed.firstIndex(of: "=") else { continue }
            let key = Self.trimmed(trimmed[..<equals])
            guard !key.isEmpty else { continue }
            values[String(key)] = Self.unquoted(Self.trimmed(trimmed[trimmed.index(after: equals)...]))
        }
    }

    subscript(key: String) -> String? { values[key] }

    /// `raw` with its quotes and escapes resolved: inside `'…'` nothing is special; inside
    /// `"…"` a backslash escapes `"`, `\`, `` ` `` and `$`; outside quotes it escapes any character.
    private static func unquoted(_ raw: Substring) -> String {
        var result = ""
        var quote: Character?
        var escaped = false
        for character in raw {
            if escaped {
                if quote == "\"", !"\"\\`$".contains(character) { result.append("\\") }
                result.append(character)
                escaped = false
            } else if character == "\\", quote != "'" {
                escaped = true
            } else if let open = quote, character == open {
                quote = nil
            } else if quote == nil, character == "\"" || character == "'" {
                quote = character
            } else {
                result.append(character)
            }
        }
        return result
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = text.firstIndex(where: { !blank($0) }), let end = text.lastIndex(where: { !blank($0) }) else { return "" }
        return text[start...end]
    }
}
