// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// Quotes, ellipses and arrows as typeset characters where the locale is UTF-8, and as ASCII
/// everywhere else (`LC_ALL=C`, a serial console), so no terminal shows mojibake.
enum Typography {
    /// Whether the locale the environment asks for (LC_ALL, LC_CTYPE, LANG) uses UTF-8. Read once;
    /// the process's own locale is left as it was.
    static let isUnicode: Bool = {
        let previous = setlocale(LC_CTYPE, nil).map { String(cString: $0) } ?? "C"
        defer { setlocale(LC_CTYPE, previous) }
        guard setlocale(LC_CTYPE, "") != nil, let codeset = nl_langinfo(nl_item(CODESET)) else { return false }
        return String(cString: codeset) == "UTF-8"
    }()

    private static let replacements: [(Character, String)] = [
        ("“", "\""), ("”", "\""), ("‘", "'"), ("’", "'"), ("…", "..."), ("→", "->"), ("—", "-"), ("–", "-"),
    ]

    /// `text` as the terminal can show it.
    static func adapted(_ text: String) -> String {
        guard !isUnicode, text.unicodeScalars.contains(where: { !$0.isASCII }) else { return text }
        var result = ""
        for character in text {
            if let replacement = replacements.first(where: { $0.0 == character }) {
                result += replacement.1
            } else {
                result.append(character)
            }
        }
        return result
    }
}
