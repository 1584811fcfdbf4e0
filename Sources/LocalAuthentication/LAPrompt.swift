// SPDX-License-Identifier: Apache-2.0
/// What a running evaluation wants the user to see, from localauthd's `Prompt` signal. Apple shows
/// this in system UI; on Linux the app shows it (see `LAContext.prompts`).
public struct LAPrompt: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Touch the sensor or look at the screen.
        case biometry
        /// A sensor is busy with another evaluation (see the sensor sharing rule).
        case waiting
        /// A read could not be judged (too short, not centered, no face …); try again.
        case retry
        /// A face matched but was not looking at the screen.
        case attentionRequired = "attention-required"
        /// Not recognized; try again.
        case noMatch = "no-match"
        /// The passcode is wanted.
        case passcode
        /// The passcode was wrong; try again.
        case passcodeWrong = "passcode-wrong"
    }

    public let kind: Kind
    /// A sentence for the user, built by the daemon from the reason and the context's titles.
    public let message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }
}
