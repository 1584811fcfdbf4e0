// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// A message for the owner of an evaluating context.
public struct Prompt: Sendable, Hashable {
    public var kind: PromptKind
    /// A sentence for the user, using the context's titles.
    public var message: String
    /// The same, structured, for agents that render it in their own language.
    public var detail: PromptDetail?

    public init(_ kind: PromptKind, _ message: String, detail: PromptDetail? = nil) {
        self.kind = kind
        self.message = message
        self.detail = detail
    }

    /// Asks for or answers about the passcode: never shown to an app that may not take it.
    public var isPasscodeRequest: Bool { kind.isPasscodeRequest }
}
