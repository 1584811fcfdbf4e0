// SPDX-License-Identifier: Apache-2.0
import CommandLineKit
import LocalAuthAPI

/// What the command line asks for.
enum ParsedCommandLine {
    /// A command with every field parsed and checked.
    case run(any ParsableCommand, GlobalOptions)
    /// Help text for the whole tool or one command.
    case help(String)
    case version
}

/// Turns argv into a command of `CommandTable`: the global options first (anywhere before `--`),
/// then the command's words, then its own rows (CommandLineKit's rules).
@MainActor
enum CommandRouter {
    static func parse(_ arguments: [String]) throws(CLIError) -> ParsedCommandLine {
        var tool = ToolOptions()
        let rest: [String]
        do throws(CommandLineError) {
            rest = try CommandLineParser.extract(ToolOptions.rows, from: arguments, into: &tool)
        } catch {
            throw .usage(error.message)
        }
        if tool.manualPage { return .help(ManualPage.localauth) }
        if tool.cHeader { return .help(LocalAuthCHeader.text) }
        if tool.pythonConstants { return .help(LocalAuthPythonConstants.text) }
        if tool.version && rest.isEmpty { return .version }

        let words = Array(rest.prefix { !$0.hasPrefix("-") })
        if words.isEmpty, let option = rest.first {
            throw .usage(CommandLineParser.unknownOption(option, known: CommandTable.globalOptions.map(\.name),
                                                         subject: .init(name: nil, usage: "", helpHint: " See localauth --help.")).message)
        }
        guard let command = match(words) else {
            if words.isEmpty && tool.help { return .help(CommandTable.overview) }
            if rest.isEmpty { throw .usage("Which command? See localauth --help.") }
            return .help(try helpText(for: words, requested: tool.help))
        }
        if tool.help { return .help(command.help) }
        return .run(try command.parse(Array(rest.dropFirst(command.words.count))), tool.global)
    }

    /// The help for the command (or group) `words` names; the overview for none. Without
    /// `requested`, a group's list is a usage error (the group alone is not a command).
    static func helpText(for words: [String], requested: Bool = true) throws(CLIError) -> String {
        if words.isEmpty { return CommandTable.overview }
        if let command = match(words), command.words.count == words.count { return command.help }
        let group = CommandTable.commands.filter { $0.words.count > 1 && $0.words[0] == words[0] }
        if !group.isEmpty && (words.count == 1 || !requested) {
            if requested { return CommandTable.groupHelp(group) }
            let list = group.map { "  localauth \($0.synopsis)" }.joined(separator: "\n")
            throw .usage("“\(words.prefix(2).joined(separator: " "))” is not a command. Use one of:\n\(list)")
        }
        var message = "unknown command “\(words.prefix(2).joined(separator: " "))”."
        let candidates = group.isEmpty ? CommandTable.vocabulary : group.map(\.name)
        if let suggestion = CommandLineParser.closest(to: words.prefix(group.isEmpty ? 1 : 2).joined(separator: " "), in: candidates) {
            message += " Did you mean “\(suggestion)”?"
        }
        throw .usage(message + " See localauth --help.")
    }

    /// The command whose words are the longest prefix of `words`.
    static func match(_ words: [String]) -> CommandSpec? {
        CommandTable.commands
            .filter { $0.words.count <= words.count && Array(words.prefix($0.words.count)) == $0.words }
            .max { $0.words.count < $1.words.count }
    }
}
