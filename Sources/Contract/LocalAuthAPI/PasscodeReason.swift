// SPDX-License-Identifier: Apache-2.0
/// Why an evaluation asks for the passcode: the `Advice` of a `passcode` prompt.
public enum PasscodeReason: String, Sendable, CaseIterable, Hashable {
    /// The policy or the user's enrollments leave nothing but the passcode.
    case noBiometry = "no-biometry"
    /// The user chose the fallback.
    case fallback
    case attemptsExhausted = "attempts-exhausted"
    case lockedOut = "locked-out"
    case sensorLost = "sensor-lost"
}
