// SPDX-License-Identifier: Apache-2.0
/// A type an option value or an argument converts to without further words at the declaration
/// (swift-argument-parser's protocol of the same name).
public protocol ExpressibleByArgument: Sendable {
    /// How a word of the command line becomes a value, and the words completion offers.
    static var argumentParser: ValueParser<Self> { get }
}

extension String: ExpressibleByArgument {
    public static var argumentParser: ValueParser<String> { ValueParser { text, _ in text } }
}

/// An option that may be left out: nil unless given.
extension Optional: ExpressibleByArgument where Wrapped: ExpressibleByArgument {
    public static var argumentParser: ValueParser<Wrapped?> { Wrapped.argumentParser.map { $0 } }
}
