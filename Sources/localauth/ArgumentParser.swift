// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus

/// What the command line asks for.
enum ParsedCommandLine: Sendable {
    case run(CommandSpec, Invocation)
    /// Help text for the whole tool or one command.
    case help(String)
    case version
}

/// The options every command accepts, before or after the command words.
struct GlobalOptions: Sendable {
    var bus: DBusBus = .system
    var json = false
    /// Reply timeout for ordinary calls; for `evaluate` only when given.
    var timeout: Duration?

    var busDescription: String { bus.description }
}

/// Turns argv into a command and its options, driven by `CommandTable`.
@MainActor
enum ArgumentParser {
    static func parse(_ arguments: [String]) throws(CLIError) -> ParsedCommandLine {
        var global = GlobalOptions()
        var wantsHelp = false, wantsVersion = false
        var rest: [String] = []
        var index = 0
        func value(for option: String) throws(CLIError) -> String {
            index += 1
            guard index < arguments.count else { throw .usage("\(option) needs a value.") }
            return arguments[index]
        }
        while index < arguments.count {
            let (name, inline) = split(arguments[index])
            switch name {
            case "--":
                rest += arguments[index...]
                index = arguments.count
                continue
            case "--system": global.bus = .system
            case "--session": global.bus = .session
            case "--address":
                let address = if let inline { inline } else { try value(for: name) }
                guard !address.isEmpty else { throw .usage("--address needs a D-Bus address, e.g. unix:path=/run/my-bus.") }
                global.bus = .address(address)
            case "--json": global.json = true
            case "--timeout":
                let text = if let inline { inline } else { try value(for: name) }
                guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
                    throw .usage("--timeout needs a number of seconds between 0 and 86400, not “\(text)”.")
                }
                global.timeout = .milliseconds(Int64(seconds * 1000))
            case "--help", "-h": wantsHelp = true
            case "--version": wantsVersion = true
            // Hidden: prints the localauth(1) page; `make man` keeps man/localauth.1 in step with it.
            case "--help-man": return .help(ManualPage.localauth)
            // Hidden: prints the contract's names for C; `make man` keeps pam/localauth-api.h in step with it.
            case "--help-c-header": return .help(LocalAuthCHeader.text)
            default: rest.append(arguments[index])
            }
            index += 1
        }
        if wantsVersion && rest.isEmpty { return .version }

        let words = Array(rest.prefix { !$0.hasPrefix("-") })
        if words.isEmpty, let option = rest.first { throw unknownOption(option, of: nil) }
        guard let command = match(words) else {
            if words.isEmpty && wantsHelp { return .help(CommandTable.overview) }
            if rest.isEmpty { throw .usage("Which command? See localauth --help.") }
            return .help(try helpText(for: words, requested: wantsHelp))
        }
        if wantsHelp { return .help(command.help) }
        return .run(command, try invocation(of: command, from: Array(rest.dropFirst(command.words.count)), global: global))
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
        if let suggestion = closest(to: words.prefix(group.isEmpty ? 1 : 2).joined(separator: " "), in: candidates) {
            message += " Did you mean “\(suggestion)”?"
        }
        throw .usage(message + " See localauth --help.")
    }

    /// An option neither `command` (if any) nor the global options know, with the nearest of them.
    private static func unknownOption(_ token: String, of command: CommandSpec?) -> CLIError {
        let (name, _) = split(token)
        let known = (command?.options ?? []).map(\.name) + CommandTable.globalOptions.map(\.name)
        var message = command.map { "\($0.name): unknown option \(name)." } ?? "unknown option \(name)."
        if let close = closest(to: name, in: known) { message += " Did you mean \(close)?" }
        return .usage(message + " See localauth \(command.map { $0.name + " " } ?? "")--help.")
    }

    /// The command whose words are the longest prefix of `words`.
    static func match(_ words: [String]) -> CommandSpec? {
        CommandTable.commands
            .filter { $0.words.count <= words.count && Array(words.prefix($0.words.count)) == $0.words }
            .max { $0.words.count < $1.words.count }
    }

    private static func invocation(of command: CommandSpec, from tokens: [String], global: GlobalOptions) throws(CLIError) -> Invocation {
        var values: [String: String] = [:], flags: Set<String> = [], positionals: [String] = []
        var index = 0, optionsEnded = false
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if optionsEnded || !token.hasPrefix("-") || token == "-" {
                positionals.append(token)
                continue
            }
            if token == "--" { optionsEnded = true; continue }
            let (name, inline) = split(token)
            guard let option = command.options.first(where: { $0.name == name }) else { throw unknownOption(token, of: command) }
            if option.valueName == nil {
                guard inline == nil else { throw .usage("\(name) takes no value.") }
                flags.insert(name)
            } else if let inline {
                values[name] = inline
            } else {
                guard index < tokens.count else { throw .usage("\(name) needs a value (\(option.valueName!)).") }
                values[name] = tokens[index]
                index += 1
            }
        }
        guard positionals.count >= command.requiredArguments, positionals.count <= command.arguments.count else {
            throw .usage("Usage: \(command.usage)")
        }
        if let missing = command.options.first(where: { $0.required && values[$0.name] == nil }) {
            throw .usage("\(command.name) needs \(missing.synopsis): \(missing.help). Usage: \(command.usage)")
        }
        return Invocation(command: command, global: global, values: values, flags: flags, positionals: positionals)
    }

    /// `--name=value` → ("--name", "value"); anything else → (token, nil).
    private static func split(_ token: String) -> (String, String?) {
        guard token.hasPrefix("--"), let equals = token.firstIndex(of: "=") else { return (token, nil) }
        return (String(token[..<equals]), String(token[token.index(after: equals)...]))
    }

    /// The one candidate that starts with `word`, else the nearest by edit distance if it is close enough to be a typo.
    nonisolated static func closest(to word: String, in candidates: [String]) -> String? {
        let extensions = candidates.filter { $0.hasPrefix(word) }
        if !word.isEmpty, extensions.count == 1 { return extensions[0] }
        let scored = candidates.map { ($0, editDistance(word, $0)) }.min { $0.1 < $1.1 }
        guard let (best, distance) = scored, distance <= max(2, word.count / 3) else { return nil }
        return best
    }

    nonisolated static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
