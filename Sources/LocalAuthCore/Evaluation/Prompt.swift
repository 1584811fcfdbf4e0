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
    /// The same, structured, for agents that render it in their own language.
    public var detail: PromptDetail?

    public init(_ kind: Kind, _ message: String, detail: PromptDetail? = nil) {
        self.kind = kind
        self.message = message
        self.detail = detail
    }

    /// Asks for or answers about the passcode: never shown to an app that may not take it.
    public var isPasscodeRequest: Bool { kind == .passcode || kind == .passcodeWrong }
}
