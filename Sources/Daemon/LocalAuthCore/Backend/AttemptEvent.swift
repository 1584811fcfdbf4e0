// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
/// What a biometric sensor reports during an evaluation.
public enum AttemptEvent: Sendable, Hashable {
    /// An enrolled template matched.
    case match(label: String)
    /// A finger or face was read and matched nothing; counts as a failure.
    case noMatch
    /// A read that could not be judged; reported to the user, never counted.
    case retry(RetryReason)
    /// The sensor went away; it stops listening for this evaluation.
    case disconnected
}

extension RetryReason {
    /// What the user should do, as a sentence.
    public var advice: String {
        switch self {
        case .tooShort: "The swipe was too short; try again."
        case .notCentered: "Center your finger on the sensor and try again."
        case .removeAndRetry: "Remove your finger and try again."
        case .tooFast: "Your finger moved too fast; try again."
        case .noFace: "No face in view; look at the screen."
        case .attentionRequired: "Look at the screen with your eyes open."
        }
    }
}
