// SPDX-License-Identifier: Apache-2.0
/// What an agent answers for the sheet it shows, with the sheet's cookie.
public enum AgentAnswer: Sendable {
    /// The user typed the passcode; the engine checks it and counts a wrong one.
    case passcode(Passcode)
    /// The user chose the fallback button.
    case fallback
    /// The user chose the cancel button.
    case cancel
    /// The user allowed (true) or refused (false) the app the face sensor; allowing through a
    /// fallback agent, or an agent that is the app itself, also needs the user's passcode.
    case faceConsent(Bool, Passcode)

    /// Reads the wire form (`passcode`, `fallback`, `cancel`, `allow-face`, `deny-face`).
    public init(response: String, passcode: Passcode) throws(LocalAuthError) {
        switch response {
        case "passcode": self = .passcode(passcode)
        case "fallback": self = .fallback
        case "cancel": self = .cancel
        case "allow-face": self = .faceConsent(true, passcode)
        case "deny-face": self = .faceConsent(false, passcode)
        default:
            throw LocalAuthError(.invalidArgument, "Unknown response \"\(response.prefix(32))\"; use passcode, fallback, cancel, allow-face or deny-face.")
        }
    }
}
