// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// What the daemon asks an agent to show when an evaluation starts (`BeginAuthentication`).
/// Text from the app (reason, titles, app identity, usage description) is passed as it is, never
/// spliced into the daemon's sentences; ``title`` and ``faceConsentQuestion`` are the daemon's own,
/// in the agent's language.
public struct AgentRequest: Sendable, Hashable {
    /// Names this authentication in later updates and its end; random, not a secret.
    public let handle: String
    /// The single-use cookie the next answer must carry.
    public let cookie: String
    /// The app's identity as the daemon determined it (its executable), not what the app says.
    public let app: String
    public let user: UInt32
    public let policy: LAPolicy
    public let reason: String
    /// Empty: no fallback button.
    public let fallbackTitle: String
    public let cancelTitle: String
    /// The sensors this evaluation may use.
    public let biometry: BiometricModalitySet
    /// Whether the agent may offer passcode entry (policy 2).
    public let passcodeAllowed: Bool
    public let title: String
    /// Set when the user must first allow the app the face sensor: the app's usage description.
    public let faceUsageDescription: String?
    /// The question to ask with it, in the agent's language.
    public let faceConsentQuestion: String?
}

/// A change of what the agent shows (`UpdateAuthentication`).
public struct AgentUpdate: Sendable, Hashable {
    public let handle: String
    /// The cookie the next answer must carry (a new one after each answer).
    public let cookie: String
    /// An ``AgentUpdateKind`` raw value: a prompt kind, or `ready` after an answer was taken and the sheet goes on.
    public let kind: String
    /// The machine-readable detail: a retry reason (`too-short`, …), why the passcode is wanted
    /// (`fallback`, `attempts-exhausted`, …), or empty.
    public let advice: String
    /// The sensors now listening, for `biometry` and `waiting`.
    public let sensors: BiometricModalitySet
    /// The daemon's sentence for it, in the agent's language.
    public let message: String
}
