// SPDX-License-Identifier: Apache-2.0
/// Text from a client (an app identity, a label, a session name) made safe to splice into the
/// daemon's sentences, refusals and log lines: it cannot end a quotation, start a new line, move
/// the cursor (ESC) or reorder what follows (bidi overrides such as U+202E).
public enum DisplayText {
    /// `text` with quotation marks, C0 and C1 controls, line and paragraph separators
    /// and Unicode format characters (bidi controls, zero-width characters) written as `\u{…}`
    /// escapes, cut to `limit` characters with an ellipsis.
    public static func escaped(_ text: String, limit: Int = 256) -> String {
        escaping(text, quotes: true, limit: limit)
    }

    /// `text` with only control and format characters escaped (quotes kept): for log lines.
    public static func controlsEscaped(_ text: String) -> String {
        guard containsControls(text) else { return text }
        return escaping(text, quotes: false, limit: nil)
    }

    /// ``controlsEscaped(_:)`` of UTF-8 text, as UTF-8: `utf8` itself when it is all printable
    /// ASCII (nearly every log line).
    public static func controlsEscaped(utf8: [UInt8]) -> [UInt8] {
        utf8.allSatisfy(isPrintableASCII) ? utf8 : Array(escaping(String(decoding: utf8, as: UTF8.self), quotes: false, limit: nil).utf8)
    }

    /// Whether `text` holds a control or format character (refused in identities and labels).
    public static func containsControls(_ text: String) -> Bool {
        // Printable ASCII, most text here (every log line), needs no look at Unicode's categories.
        if text.utf8.withContiguousStorageIfAvailable({ $0.allSatisfy(isPrintableASCII) }) ?? text.utf8.allSatisfy(isPrintableASCII) {
            return false
        }
        return text.unicodeScalars.contains { needsEscape($0, quotes: false) }
    }

    private static func isPrintableASCII(_ byte: UInt8) -> Bool { byte >= 0x20 && byte < 0x7F }

    /// `text` with the scalars ``needsEscape(_:quotes:)`` picks written as `\u{…}`, cut to `limit`
    /// scalars with an ellipsis.
    private static func escaping(_ text: String, quotes: Bool, limit: Int?) -> String {
        var result = ""
        for (count, scalar) in text.unicodeScalars.enumerated() {
            if let limit, count >= limit { return result + "…" }
            if needsEscape(scalar, quotes: quotes) {
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, quotes: Bool) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029: return true
        case 0x22, 0x201C, 0x201D, 0x201E, 0x2018, 0x2019, 0x201A, 0x00AB, 0x00BB: return quotes
        default: return scalar.properties.generalCategory == .format
        }
    }
}
