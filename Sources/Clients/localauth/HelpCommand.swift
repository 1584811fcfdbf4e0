// SPDX-License-Identifier: Apache-2.0
import CommandLineKit

/// `help [COMMAND] [SUBCOMMAND]`: the same text as `--help`.
struct HelpCommand: ParsableCommand {
    static let commandPlaceholder = "[COMMAND]"
    static let subcommandPlaceholder = "[SUBCOMMAND]"
    static let configuration = CommandConfiguration<Self>(
        words: ["help"], summary: "Show the help of localauth, of a command or of a group of commands (like --help).",
        arguments: [.argument(\.command, commandPlaceholder), .argument(\.subcommand, subcommandPlaceholder)])
    var command: String?
    var subcommand: String?

    func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
        Output.write(try CommandRouter.helpText(for: [command, subcommand].compactMap { $0 }), to: 1)
        return ExitStatus.success
    }
}
