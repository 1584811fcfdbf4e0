// SPDX-License-Identifier: Apache-2.0
/// The keys of `Agent.BeginAuthentication`'s request (`a{sv}`), each with its value's signature:
/// the daemon encodes them, agents decode them, the contract test checks the file documents them.
public enum LocalAuthAgentRequestKey: String, CaseIterable, Sendable {
    case app = "App"
    case user = "User"
    case policy = "Policy"
    case reason = "Reason"
    /// Empty: no fallback button.
    case fallbackTitle = "FallbackTitle"
    case cancelTitle = "CancelTitle"
    case biometry = "Biometry"
    case passcodeAllowed = "PasscodeAllowed"
    case title = "Title"
    /// Only when the user must first allow the application the face sensor, with ``faceConsentQuestion``.
    case faceUsageDescription = "FaceUsageDescription"
    case faceConsentQuestion = "FaceConsentQuestion"

    public var signature: String {
        switch self {
        case .app, .reason, .fallbackTitle, .cancelTitle, .title, .faceUsageDescription, .faceConsentQuestion: "s"
        case .user, .policy: "u"
        case .biometry: "as"
        case .passcodeAllowed: "b"
        }
    }
}

/// The keys of `Agent.UpdateAuthentication`'s update (`a{sv}`), each with its value's signature.
public enum LocalAuthAgentUpdateKey: String, CaseIterable, Sendable {
    case kind = "Kind"
    case advice = "Advice"
    case sensors = "Sensors"
    case message = "Message"

    public var signature: String {
        switch self {
        case .kind, .advice, .message: "s"
        case .sensors: "as"
        }
    }
}
