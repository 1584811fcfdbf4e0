// SPDX-License-Identifier: Apache-2.0
/// localauthd asks for the passcode during a `deviceOwnerAuthentication` evaluation; passed to
/// `LAContext.passcodeProvider`.
public struct LAPasscodeRequest: Sendable, Hashable {
    /// The sentence to show, e.g. "Enter your passcode to unlock your notes. Choose “Cancel” to stop."
    public let message: String
    /// The previous passcode was wrong.
    public let isRetry: Bool

    public init(message: String, isRetry: Bool) {
        self.message = message
        self.isRetry = isRetry
    }
}

/// Answers a passcode request: the passcode, or nil when the user cancelled (the evaluation then
/// ends with `LAError.userCancel`). Called on a private queue; the task is cancelled when the
/// evaluation ends first (e.g. by a biometric match).
///
/// A Swift `String` cannot be wiped: the answer is copied at once into a buffer that is wiped after
/// it was sent, but the `String` itself (and any copy the app made while reading it) stays in freed
/// memory until reused. Keep it short-lived; `LAContext.setCredential(_:type:)` takes `Data`, which
/// the app can wipe itself.
public typealias LAPasscodeProvider = @Sendable (LAPasscodeRequest) async -> String?
