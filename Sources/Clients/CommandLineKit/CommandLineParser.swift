// SPDX-License-Identifier: Apache-2.0
/// The rules every command line of this project follows (`localauth` and `localauthd` alike):
///
/// - an option is `--name`, or `--name VALUE`, or `--name=VALUE`; a value given as the next word
///   may not start with `--` (use `--name=--value` for that), and a flag takes no value;
/// - an option with a value may be given once; flags may repeat;
/// - `--` ends the options: every word after it is an argument, and `-` alone is an argument;
/// - an unknown option is refused with the nearest known one ("Did you mean --json?");
/// - words are checked in two steps: first the shape (unknown options, missing values, the number
///   of arguments, required options), then each value is converted and checked by its row, in the
///   order given, so a command never starts with a value its type does not accept.
public enum CommandLineParser {
    /// Who is parsing, for the words of the errors.
    public struct Subject: Sendable {
        /// The command (`evaluate`, `sim touch`); nil for the tool's own options.
        public var name: String?
        /// The usage line shown when the arguments do not fit (`localauth sim touch FINGER`).
        public var usage: String
        /// Appended to an unknown option's error (` See localauth evaluate --help.`).
        public var helpHint: String
        /// Options accepted elsewhere on the line (the global ones), for suggestions.
        public var otherOptions: [String]

        public init(name: String?, usage: String, helpHint: String = "", otherOptions: [String] = []) {
            (self.name, self.usage, self.helpHint, self.otherOptions) = (name, usage, helpHint, otherOptions)
        }
    }

    /// Reads the `options` wherever they appear before `--` into `root`, and returns every other
    /// word in order (`--` and all after it included), for the command to parse.
    public static func extract<Root>(_ options: [Option<Root>], from tokens: [String], into root: inout Root) throws(CommandLineError) -> [String] {
        let (given, rest) = try scan(tokens, options, command: nil)
        for (option, text) in given { try option.store(&root, text) }
        return rest
    }

    /// Parses a command's whole line (its options and arguments) into `root`.
    public static func parse<Root>(_ tokens: [String], into root: inout Root, options: [Option<Root>], arguments: [Argument<Root>],
                                   subject: Subject) throws(CommandLineError) {
        let (given, positionals) = try scan(tokens, options, command: subject)
        guard positionals.count >= arguments.filter({ !$0.isOptional }).count, positionals.count <= arguments.count else {
            throw CommandLineError("Usage: \(subject.usage)")
        }
        if let missing = options.first(where: { option in option.info.required && !given.contains { $0.0.info.name == option.info.name } }) {
            throw CommandLineError("\(subject.name ?? "This") needs \(missing.info.synopsis): \(missing.info.help). Usage: \(subject.usage)")
        }
        for (option, text) in given { try option.store(&root, text) }
        for (argument, text) in zip(arguments, positionals) { try argument.store(&root, text, subject.name ?? "") }
    }

    /// An option that no row knows, with the nearest of `known`.
    public static func unknownOption(_ token: String, known: [String], subject: Subject) -> CommandLineError {
        let (name, _) = split(token)
        var message = subject.name.map { "\($0): unknown option \(name)." } ?? "unknown option \(name)."
        if let close = closest(to: name, in: known) { message += " Did you mean \(close)?" }
        return CommandLineError(message + subject.helpHint)
    }

    /// The options given (in order, with their value words) and the other words. With a
    /// `command`, an unknown option is an error and `--` makes the rest arguments; without one,
    /// unknown words are kept for the command.
    private static func scan<Root>(_ tokens: [String], _ options: [Option<Root>],
                                   command: Subject?) throws(CommandLineError) -> (given: [(Option<Root>, String?)], rest: [String]) {
        var given: [(Option<Root>, String?)] = [], rest: [String] = []
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if token == "--" {
                rest += command == nil ? tokens[(index - 1)...] : tokens[index...]
                break
            }
            guard token.hasPrefix("-"), token != "-" else {
                rest.append(token)
                continue
            }
            let (name, inline) = split(token)
            guard let option = options.first(where: { $0.info.answers(to: name) }) else {
                guard let command else {
                    rest.append(token)
                    continue
                }
                let known = options.filter { !$0.info.hidden }.map(\.info.name) + command.otherOptions
                throw unknownOption(token, known: known, subject: command)
            }
            guard let valueName = option.info.valueName else {
                guard inline == nil else { throw CommandLineError("\(name) takes no value.") }
                given.append((option, nil))
                continue
            }
            guard !given.contains(where: { $0.0.info.name == option.info.name }) else {
                throw CommandLineError("\(option.info.name) is given twice; give it once.")
            }
            if let inline {
                given.append((option, inline))
                continue
            }
            guard index < tokens.count, !tokens[index].hasPrefix("--") else {
                throw CommandLineError("\(name) needs a value (\(valueName)).")
            }
            given.append((option, tokens[index]))
            index += 1
        }
        return (given, rest)
    }

    /// `--name=value` → ("--name", "value"); anything else → (token, nil).
    static func split(_ token: String) -> (String, String?) {
        guard token.hasPrefix("--"), let equals = token.firstIndex(of: "=") else { return (token, nil) }
        return (String(token[..<equals]), String(token[token.index(after: equals)...]))
    }

    /// The one candidate that starts with `word`, else the nearest by edit distance if it is close enough to be a typo.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let extensions = candidates.filter { $0.hasPrefix(word) }
        if !word.isEmpty, extensions.count == 1 { return extensions[0] }
        let scored = candidates.map { ($0, editDistance(word, $0)) }.min { $0.1 < $1.1 }
        guard let (best, distance) = scored, distance <= max(2, word.count / 3) else { return nil }
        return best
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
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
