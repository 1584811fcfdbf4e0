// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// What an agent answers for the sheet it shows, with the sheet's cookie.
public enum AgentAnswer: Sendable {
    /// The user typed the passcode; the engine checks it and counts a wrong one.
    case passcode(Passcode)
    /// The user chose the fallback button.
    case fallback
    /// The user chose the cancel button.
    case cancel
    /// The user allowed (true) or refused (false) the app the face sensor. Allowing always carries
    /// the user's passcode, which the engine checks and counts: any process of the user can run an
    /// agent, the app itself included, so an agent's word alone is not the user's. Refusing needs none.
    case faceConsent(Bool, Passcode)

    /// Reads the wire form (an ``AgentResponse`` raw value) and the passcode that came with it.
    public init(response: String, passcode: Passcode) throws(LocalAuthError) {
        guard let response = AgentResponse(rawValue: response) else {
            let choices = AgentResponse.allCases.map(\.rawValue).joined(separator: ", ")
            throw LocalAuthError(.invalidArgument, "Unknown response \"\(response.prefix(32))\"; use one of: \(choices).")
        }
        switch response {
        case .passcode: self = .passcode(passcode)
        case .fallback: self = .fallback
        case .cancel: self = .cancel
        case .allowFace: self = .faceConsent(true, passcode)
        case .denyFace: self = .faceConsent(false, passcode)
        }
    }
}
