// SPDX-License-Identifier: Apache-2.0
/// Help text laid out for an 80-column terminal: words wrapped, a term and its description side by side.
public enum TextLayout {
    public static let width = 80

    /// `text` broken between words into lines of at most `width` characters (a longer word keeps its own line).
    /// Blank lines separate paragraphs; the line breaks inside a paragraph are not kept.
    public static func wrap(_ text: String, width: Int = width) -> [String] {
        var lines: [String] = []
        for (index, paragraph) in text.split(separator: "\n\n", omittingEmptySubsequences: false).enumerated() {
            if index > 0 { lines.append("") }
            lines += fill(paragraph.split(whereSeparator: \.isWhitespace).map(String.init), width: width)
        }
        return lines
    }

    /// `words` (which may contain blanks, like `[--reuse SECONDS]`) joined by blanks into lines of at most `width`.
    public static func fill(_ words: [String], width: Int = width) -> [String] {
        var lines: [String] = [], line = ""
        for word in words {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return line.isEmpty ? lines : lines + [line]
    }

    /// `term` indented by two, then `description` wrapped in a column starting at `column`; a term
    /// too wide for the column gets a line of its own.
    public static func entry(_ term: String, _ description: String, column: Int) -> String {
        let left = "  " + term
        let body = wrap(description, width: width - column)
        let pad = String(repeating: " ", count: column)
        guard left.count + 2 <= column, let first = body.first else {
            return ([left] + body.map { pad + $0 }).joined(separator: "\n")
        }
        let head = left + String(repeating: " ", count: column - left.count) + first
        return ([head] + body.dropFirst().map { pad + $0 }).joined(separator: "\n")
    }
}
