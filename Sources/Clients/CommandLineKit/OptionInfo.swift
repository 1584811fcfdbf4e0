// SPDX-License-Identifier: Apache-2.0
/// What help, manual pages and completion show of an option: `--name`, or `--name VALUE`.
public struct OptionInfo: Sendable {
    public let name: String
    /// Other spellings the parser accepts (`-h`); help shows only `name`.
    public let aliases: [String]
    /// nil for a flag.
    public let valueName: String?
    public let help: String
    /// The parser refuses the command without it; usage and help show it without brackets.
    public let required: Bool
    /// Parsed, but left out of help, completion and suggestions (`--help-man`).
    public let hidden: Bool
    /// The words completion offers for the value; empty for free text.
    public let completions: [String]

    /// `--name VALUE` or `--name`.
    public var synopsis: String { name + (valueName.map { " " + $0 } ?? "") }
    public var helpText: String { help + (required ? " (required)" : "") }

    func answers(to spelling: String) -> Bool { spelling == name || aliases.contains(spelling) }
}
