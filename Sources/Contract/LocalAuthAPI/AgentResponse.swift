// SPDX-License-Identifier: Apache-2.0
/// What an agent answers for the sheet it shows: the `response` argument of `Manager.AgentResponse`.
public enum AgentResponse: String, Sendable, Hashable, CaseIterable {
    /// The user typed the passcode, which travels in the call's `passcode` argument.
    case passcode
    /// The user chose the fallback button.
    case fallback
    /// The user chose the cancel button.
    case cancel
    /// The user allowed the app the face sensor (with the user's passcode).
    case allowFace = "allow-face"
    /// The user refused the app the face sensor.
    case denyFace = "deny-face"
}
