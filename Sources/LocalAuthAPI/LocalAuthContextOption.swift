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
    case faceUsageDescription = "FaceUsageDescription"

    public var signature: String {
        switch self {
        case .localizedFallbackTitle, .localizedCancelTitle, .faceUsageDescription: "s"
        case .interactionNotAllowed, .unlock: "b"
        case .allowableReuseDuration: "d"
        case .user: "u"
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
