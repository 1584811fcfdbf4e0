// SPDX-License-Identifier: Apache-2.0
/// A command line that cannot be run as given, with a message that says what to type instead.
public struct CommandLineError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
