// SPDX-License-Identifier: Apache-2.0
/// Text another process chose (an app's reason, titles and identity, a provider's description
/// and version, an error message from the bus) made harmless on a terminal: it cannot erase or
/// overwrite what is shown (ESC sequences, carriage return, backspace, C1 controls such as CSI),
/// reorder it (bidi overrides and isolates) or, in a one-line field, start a line of its own.
///
/// What is removed stays visible: a control character is shown as `\xHH`, a bidi control or a
/// line or paragraph separator as `\u{HHHH}`, so the reader sees that the text tried something.
enum TerminalSafeText {
    /// For a field shown within a line (reason, app, title): newlines and tabs are escaped too.
    static func line(_ text: String) -> String {
        escaping(text, keepsLines: false)
    }

    /// For text of several lines (a command's result, a message): newlines and tabs are kept.
    static func lines(_ text: String) -> String {
        escaping(text, keepsLines: true)
    }

    private static func escaping(_ text: String, keepsLines: Bool) -> String {
        // Printable ASCII (nearly every line the tool writes) needs no look at the scalars.
        if text.utf8.allSatisfy({ (0x20...0x7E).contains($0) || (keepsLines && ($0 == 0x0A || $0 == 0x09)) }) {
            return text
        }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A where keepsLines, 0x09 where keepsLines:
                result.unicodeScalars.append(scalar)
            case 0..<0x20, 0x7F...0x9F:
                let hex = String(scalar.value, radix: 16)
                result += "\\x" + (hex.count < 2 ? "0" : "") + hex
            case 0x2028, 0x2029, 0x200E, 0x200F, 0x061C, 0x202A...0x202E, 0x2066...0x2069:
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
