// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// What a running evaluation wants the user to see, from localauthd's `Prompt` signal. Apple shows
/// this in system UI; on Linux the app shows it (see `LAContext.prompts`).
public struct LAPrompt: Sendable, Hashable {
    /// The `kind` of the daemon's `Prompt` signal, declared once in LocalAuthAPI; a typealias so that
    /// `import LocalAuthentication` alone gives it.
    public typealias Kind = PromptKind

    public let kind: Kind
    /// A sentence for the user, built by the daemon from the reason and the context's titles.
    public let message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }
}
