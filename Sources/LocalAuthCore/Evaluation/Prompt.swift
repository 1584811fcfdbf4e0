// SPDX-License-Identifier: Apache-2.0
/// A message for the owner of an evaluating context.
public struct Prompt: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Sensors are listening: touch or look.
        case biometry
        /// A sensor is busy with another evaluation (see the sensor sharing rule).
        case waiting
        /// A read could not be judged; try again.
        case retry
        /// A matching face was not paying attention.
        case attentionRequired = "attention-required"
        /// A read matched nothing.
        case noMatch = "no-match"
        /// The passcode is wanted.
        case passcode
        /// A wrong passcode was submitted.
        case passcodeWrong = "passcode-wrong"
    }

    public var kind: Kind
    /// A sentence for the user, using the context's titles.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}
