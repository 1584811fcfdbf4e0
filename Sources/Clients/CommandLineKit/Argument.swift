// SPDX-License-Identifier: Apache-2.0
/// One positional argument of a command, in one row: its placeholder (in brackets when it may be
/// left out, and the property then keeps its default) and the typed property it fills.
public struct Argument<Root>: Sendable {
    /// As usage shows it: `FINGER`, `[COMMAND]`.
    public let placeholder: String
    /// The words completion offers; empty for free text.
    public let completions: [String]
    /// Stores the word into the root; the subject names the command in errors.
    let store: @Sendable (inout Root, String, _ subject: String) throws(CommandLineError) -> Void

    public var isOptional: Bool { placeholder.hasPrefix("[") }

    public static func argument<Value: ExpressibleByArgument>(_ keyPath: WritableKeyPath<Root, Value> & Sendable, _ placeholder: String) -> Argument {
        argument(keyPath, placeholder, parser: Value.argumentParser)
    }

    public static func argument<Value>(_ keyPath: WritableKeyPath<Root, Value> & Sendable, _ placeholder: String,
                                       parser: ValueParser<Value>) -> Argument {
        Argument(placeholder: placeholder, completions: parser.completions) { root, text, subject throws(CommandLineError) in
            root[keyPath: keyPath] = try parser.parse(text, for: subject)
        }
    }
}
