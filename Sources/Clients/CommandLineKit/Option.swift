// SPDX-License-Identifier: Apache-2.0
/// One option of a command, in one row: its spelling and help, and the typed property of `Root` it
/// fills through a key path, so a misspelt property is a compile error and a bad value a usage
/// error before the command runs.
public struct Option<Root>: Sendable {
    public let info: OptionInfo
    /// Stores the value (nil for a flag) into the root, converted and checked.
    let store: @Sendable (inout Root, String?) throws(CommandLineError) -> Void

    /// A flag: `true` when given.
    public static func flag(_ keyPath: WritableKeyPath<Root, Bool> & Sendable, _ name: String, aliases: [String] = [],
                            _ help: String, hidden: Bool = false) -> Option {
        flag(keyPath, name, aliases: aliases, setting: true, help, hidden: hidden)
    }

    /// A flag that sets a property to `value` (`--system` and `--session` both set the bus; the last given wins).
    public static func flag<Value: Sendable>(_ keyPath: WritableKeyPath<Root, Value> & Sendable, _ name: String, aliases: [String] = [],
                                             setting value: Value, _ help: String, hidden: Bool = false) -> Option {
        Option(info: OptionInfo(name: name, aliases: aliases, valueName: nil, help: help, required: false, hidden: hidden, completions: [])) {
            root, _ in root[keyPath: keyPath] = value
        }
    }

    /// An option with a value of a type that knows how to parse itself (`String`, `String?`, …).
    public static func value<Value: ExpressibleByArgument>(_ keyPath: WritableKeyPath<Root, Value> & Sendable, _ name: String, _ valueName: String,
                                                           _ help: String, required: Bool = false) -> Option {
        value(keyPath, name, valueName, help, required: required, parser: Value.argumentParser)
    }

    /// An option with a value that `parser` converts and checks.
    public static func value<Value>(_ keyPath: WritableKeyPath<Root, Value> & Sendable, _ name: String, _ valueName: String, _ help: String,
                                    required: Bool = false, parser: ValueParser<Value>) -> Option {
        Option(info: OptionInfo(name: name, aliases: [], valueName: valueName, help: help, required: required, hidden: false,
                                completions: parser.completions)) { root, text throws(CommandLineError) in
            root[keyPath: keyPath] = try parser.parse(text ?? "", for: name)
        }
    }
}
