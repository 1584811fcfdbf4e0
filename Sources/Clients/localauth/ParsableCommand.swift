// SPDX-License-Identifier: Apache-2.0
import CommandLineKit

/// One command of `localauth` as a value: its typed fields are filled from the command line and
/// checked before `run` (swift-argument-parser's model). The rows of `configuration` are the only
/// place its options and arguments are spelt: help, the manual page, completion and the parser
/// all read them, and each row names its field by key path. Parsing is nonisolated (the rows hold
/// key paths, which must be Sendable); `run` is on the main actor like the rest of the tool.
protocol ParsableCommand: Sendable {
    static var configuration: CommandConfiguration<Self> { get }
    /// Every field at its default; the parser fills what the command line gives.
    init()
    /// Checks between fields after parsing (e.g. an option that needs another); none by default.
    @MainActor func validate() throws(CLIError)
    @MainActor func run(_ global: GlobalOptions) async throws(CLIError) -> Int32
}

extension ParsableCommand {
    @MainActor func validate() throws(CLIError) {}

    /// This command's entry in the table (for its usage line in errors).
    @MainActor static var spec: CommandSpec { CommandSpec(Self.self) }
}

/// A command's words, help and rows.
struct CommandConfiguration<Command>: Sendable {
    let words: [String]
    let summary: String
    /// Extra help text (what it prints, what it needs).
    var details = ""
    var options: [Option<Command>] = []
    var arguments: [Argument<Command>] = []
}
