// SPDX-License-Identifier: Apache-2.0
/// Turns one word of the command line into a typed value, or says why it cannot.
public struct ValueParser<Value>: Sendable {
    /// The words shell completion offers; empty for free text.
    public let completions: [String]
    private let convert: @Sendable (_ text: String, _ subject: String) throws(CommandLineError) -> Value

    /// `convert` gets the word and what it is for (an option's name, or the command's name for an
    /// argument), to name it in its error.
    public init(completions: [String] = [], _ convert: @escaping @Sendable (_ text: String, _ subject: String) throws(CommandLineError) -> Value) {
        self.completions = completions
        self.convert = convert
    }

    public func parse(_ text: String, for subject: String) throws(CommandLineError) -> Value {
        try convert(text, subject)
    }

    /// The same words, converted further (e.g. an address into a bus).
    public func map<Other>(_ transform: @escaping @Sendable (Value) -> Other) -> ValueParser<Other> {
        ValueParser<Other>(completions: completions) { text, subject throws(CommandLineError) in transform(try convert(text, subject)) }
    }
}

extension ValueParser where Value: Sendable {
    /// One of a fixed set of words, each standing for a value; anything else is refused with the
    /// list and the nearest word.
    public static func choice(_ choices: [(word: String, value: Value)]) -> ValueParser {
        ValueParser(completions: choices.map(\.word)) { text, subject throws(CommandLineError) in
            if let match = choices.first(where: { $0.word == text }) { return match.value }
            let words = choices.map(\.word)
            var message = "\(subject): “\(text)” is not one of \(words.joined(separator: ", "))."
            if let close = CommandLineParser.closest(to: text, in: words) { message += " Did you mean “\(close)”?" }
            throw CommandLineError(message)
        }
    }
}

extension ValueParser where Value == String {
    /// One of `words`.
    public static func choice(_ words: [String]) -> ValueParser { choice(words.map { ($0, $0) }) }

    /// Any text but the empty one, which is refused with `message`.
    public static func nonEmpty(_ message: String) -> ValueParser {
        ValueParser { text, _ throws(CommandLineError) in
            guard !text.isEmpty else { throw CommandLineError(message) }
            return text
        }
    }
}
