// SPDX-License-Identifier: Apache-2.0
/// The keys of `Manager.CreateContext`'s options (`a{sv}`), each with its value's signature.
public enum LocalAuthContextOption: String, CaseIterable, Sendable {
    case localizedFallbackTitle = "LocalizedFallbackTitle"
    case localizedCancelTitle = "LocalizedCancelTitle"
    case interactionNotAllowed = "InteractionNotAllowed"
    case allowableReuseDuration = "AllowableReuseDuration"
    /// Another user's uid: needs root or polkit.
    case user = "User"
    /// An unlock context (a login or screen lock): `true` needs root or polkit.
    case unlock = "Unlock"
    /// The uid of whoever asks to act as the context's user (root only; the PAM module sends the
    /// real uid of `su`/`sudo` or `PAM_RUSER`): failures of another uid lock only that uid out.
    case applicant = "Applicant"
    case faceUsageDescription = "FaceUsageDescription"

    public var signature: String {
        switch self {
        case .localizedFallbackTitle, .localizedCancelTitle, .faceUsageDescription: "s"
        case .interactionNotAllowed, .unlock: "b"
        case .allowableReuseDuration: "d"
        case .user, .applicant: "u"
        }
    }
}

/// The keys of the detail dictionary in each `Manager.Backends` entry (`a(ssba{sv})`), all `s`.
public enum LocalAuthBackendDetailKey: String, CaseIterable, Sendable {
    /// `built-in` (the passcode), `simulator` (the built-in fingerprint and face simulators) or `provider`.
    case kind = "Kind"
    case providerVersion = "ProviderVersion"
    case state = "State"
    case description = "Description"
}
