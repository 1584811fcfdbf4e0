// SPDX-License-Identifier: Apache-2.0
import CommandLineKit
import LocalAuthAPI

/// One command as help, the manual page, completion and the router see it, read from its
/// `ParsableCommand` type's configuration; `parse` fills and checks a value of that type.
struct CommandSpec: Sendable {
    let words: [String]
    /// Positional arguments as shown in the usage; those in brackets are optional.
    let arguments: [String]
    /// For each argument, the words completion offers (empty for free text).
    let argumentCompletions: [[String]]
    let options: [OptionInfo]
    let summary: String
    /// Extra help text (what it prints, what it needs).
    let details: String
    private let parser: @MainActor @Sendable (_ tokens: [String], _ spec: CommandSpec) throws(CLIError) -> any ParsableCommand

    init<Command: ParsableCommand>(_ type: Command.Type) {
        let configuration = Command.configuration
        words = configuration.words
        arguments = configuration.arguments.map(\.placeholder)
        argumentCompletions = configuration.arguments.map(\.completions)
        options = configuration.options.map(\.info)
        summary = configuration.summary
        details = configuration.details
        parser = { tokens, spec throws(CLIError) in
            var command = Command()
            do throws(CommandLineError) {
                try CommandLineParser.parse(tokens, into: &command, options: configuration.options, arguments: configuration.arguments,
                                            subject: .init(name: spec.name, usage: spec.usage, helpHint: " See localauth \(spec.name) --help.",
                                                           otherOptions: CommandTable.globalOptions.map(\.name)))
            } catch {
                throw .usage(error.message)
            }
            try command.validate()
            return command
        }
    }

    /// The command with the words after its own parsed into its fields.
    @MainActor
    func parse(_ tokens: [String]) throws(CLIError) -> any ParsableCommand { try parser(tokens, self) }

    var name: String { words.joined(separator: " ") }
    /// The command and its arguments, as the overview lists it.
    var synopsis: String { ([name] + arguments).joined(separator: " ") }

    /// Required options first and without brackets, then the arguments, then the optional options.
    var usage: String { usageWords.joined(separator: " ") }

    /// The usage in the units a line may break between.
    var usageWords: [String] {
        ["localauth", name] + options.filter(\.required).map(\.synopsis) + arguments
            + options.filter { !$0.required }.map { "[" + $0.synopsis + "]" }
    }

    /// The help text; a command that also heads a group (`apps`: `apps allow`, `apps revoke`) lists the group's commands.
    @MainActor
    var help: String {
        let usageLines = TextLayout.fill(["Usage:"] + usageWords, width: TextLayout.width - 4)
        var lines = [usageLines[0]] + usageLines.dropFirst().map { "    " + $0 } + [""] + TextLayout.wrap(summary)
        if !details.isEmpty { lines += [""] + TextLayout.wrap(details) }
        if !options.isEmpty {
            lines += ["", "Options:"] + options.map { TextLayout.entry($0.synopsis, $0.helpText, column: CommandTable.optionColumn) }
        }
        let subcommands = CommandTable.commands.filter { $0.words.count > words.count && Array($0.words.prefix(words.count)) == words }
        if !subcommands.isEmpty {
            lines += ["", "Commands:"] + subcommands.map { TextLayout.entry($0.synopsis, $0.summary, column: CommandTable.commandColumn) }
        }
        return (lines + ["", CommandTable.globalHelp]).joined(separator: "\n")
    }
}

/// Every command of `localauth`, in the order `--help` lists them.
@MainActor
enum CommandTable {
    nonisolated static let optionColumn = 24
    nonisolated static let commandColumn = 26

    static let commands: [CommandSpec] = [
        CommandSpec(StatusCommands.Status.self),
        CommandSpec(StatusCommands.Backends.self),
        CommandSpec(StatusCommands.CanEvaluate.self),
        CommandSpec(EvaluateCommand.self),
        CommandSpec(AccountCommands.SetPasscode.self),
        CommandSpec(AccountCommands.ChangePasscode.self),
        CommandSpec(AccountCommands.RemovePasscode.self),
        CommandSpec(AccountCommands.EnrollFingerprint.self),
        CommandSpec(AccountCommands.EnrollFace.self),
        CommandSpec(AccountCommands.UnenrollFingerprint.self),
        CommandSpec(AccountCommands.UnenrollFace.self),
        CommandSpec(StatusCommands.Enrollments.self),
        CommandSpec(AccountCommands.Attention.self),
        CommandSpec(SimulatorCommands.Touch.self),
        CommandSpec(SimulatorCommands.Retry.self),
        CommandSpec(SimulatorCommands.Face.self),
        CommandSpec(SimulatorCommands.Connect.self),
        CommandSpec(SimulatorCommands.Disconnect.self),
        CommandSpec(SimulatorCommands.Cancel.self),
        CommandSpec(SimulatorCommands.Fallback.self),
        CommandSpec(SimulatorCommands.Reset.self),
        CommandSpec(MonitorCommand.self),
        CommandSpec(AgentCommand.self),
        CommandSpec(AppsCommand.List.self),
        CommandSpec(AppsCommand.Allow.self),
        CommandSpec(AppsCommand.Revoke.self),
        CommandSpec(KeyringCommand.Enroll.self),
        CommandSpec(KeyringCommand.Status.self),
        CommandSpec(KeyringCommand.Remove.self),
        CommandSpec(AccountCommands.ResetLockout.self),
        CommandSpec(RightsCommand.List.self),
        CommandSpec(RightsCommand.Save.self),
        CommandSpec(RightsCommand.Show.self),
        CommandSpec(RightsCommand.PublicKey.self),
        CommandSpec(RightsCommand.LoadSecret.self),
        CommandSpec(RightsCommand.Sign.self),
        CommandSpec(RightsCommand.Decrypt.self),
        CommandSpec(RightsCommand.Encrypt.self),
        CommandSpec(RightsCommand.Verify.self),
        CommandSpec(RightsCommand.Remove.self),
        CommandSpec(RightsCommand.Protection.self),
        CommandSpec(ProviderCheckCommand.self),
        CommandSpec(HelpCommand.self),
        CommandSpec(CompletionCommand.self),
    ]

    /// `--policy`, as evaluate and can-evaluate take it.
    nonisolated static func policyOption<Command>(_ field: WritableKeyPath<Command, LAPolicy> & Sendable) -> Option<Command> {
        .value(field, "--policy", "POLICY", "biometrics (1), owner (2, the default: biometrics or passcode), companion (3), biometrics-or-companion (4), wrist (5)")
    }

    /// `--stdin`, for the commands that need a passcode.
    nonisolated static func stdinOption<Command>(_ field: WritableKeyPath<Command, Bool> & Sendable) -> Option<Command> {
        .flag(field, "--stdin", "read passcodes from standard input, one per line, instead of the terminal")
    }

    /// The options every command accepts, before or after the command words.
    nonisolated static let globalOptions: [OptionInfo] = ToolOptions.rows.map(\.info).filter { !$0.hidden }

    nonisolated static var globalHelp: String {
        (["Global options (before or after the command):"]
            + globalOptions.map { TextLayout.entry($0.synopsis, $0.helpText, column: optionColumn) }).joined(separator: "\n")
    }

    static var overview: String {
        var lines = ["Usage: localauth [global options] COMMAND [arguments]", ""]
        lines += TextLayout.wrap("A client of localauthd, the LocalAuthentication service, for people and scripts.")
        lines += ["", "Commands:"] + commands.map { TextLayout.entry($0.synopsis, $0.summary, column: commandColumn) }
        lines += ["", globalHelp, "", "Exit status:", ExitStatus.table, ""]
        lines += ["localauth help COMMAND (or localauth COMMAND --help) shows a command's options."]
        return lines.joined(separator: "\n")
    }

    /// The commands whose first word is `group` (`sim`, `passcode`, ...), with their summaries.
    static func groupHelp(_ group: [CommandSpec]) -> String {
        (["Usage: localauth \(group[0].words[0]) COMMAND [arguments]", "", "Commands:"]
            + group.map { TextLayout.entry($0.synopsis, $0.summary, column: commandColumn) }
            + ["", "localauth help \(group[0].words[0]) COMMAND shows a command's options."]).joined(separator: "\n")
    }

    /// The words completion offers for `command`'s argument `index`: the command words for help's
    /// arguments, else what the argument's row offers.
    static func completions(of command: CommandSpec, argument index: Int) -> [String] {
        switch command.arguments[index] {
        case HelpCommand.commandPlaceholder: Array(Set(commands.map { $0.words[0] })).sorted()
        case HelpCommand.subcommandPlaceholder: Array(Set(commands.compactMap { $0.words.count > 1 ? $0.words[1] : nil })).sorted()
        default: command.argumentCompletions[index]
        }
    }

    /// Every command name and group word, for "did you mean".
    static var vocabulary: [String] {
        var names = Set(commands.map(\.name))
        names.formUnion(commands.map { $0.words[0] })
        return names.sorted()
    }
}
