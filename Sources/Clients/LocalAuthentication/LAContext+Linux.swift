// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus

/// What Apple's system UI does, done by the app on Linux: show prompts, take the passcode, report
/// the user's cancel and fallback choices.
extension LAContext {
    /// The daemon's prompts for this context's evaluations ("Touch the fingerprint sensor to …"),
    /// from now until the context is invalidated. Each access makes a new stream; each stream gets
    /// every prompt (the newest 64 are buffered).
    public var prompts: AsyncStream<LAPrompt> {
        session.prompts()
    }

    /// Asked for the passcode when a `deviceOwnerAuthentication` evaluation wants it (prompts
    /// `passcode` and `passcode-wrong`), unless a credential set with `setCredential` is offered first.
    /// Without a provider or credential the evaluation waits (until the daemon's timeout, or until
    /// `setCredential`, `userCancelled()` or `invalidate()`).
    ///
    /// Only a daemon in headless mode (`app_passcode_entry = true`) sends these prompts to an
    /// ordinary app. Normally the session's agent (`localauth agent`, ``LAAuthenticationAgent``)
    /// asks the user, the app never sees the passcode and needs no provider; with no agent the
    /// evaluation ends with `notInteractive` when it needs the passcode.
    public var passcodeProvider: LAPasscodeProvider? {
        get { session.state.withLock { $0.passcodeProvider } }
        set { session.state.withLock { $0.passcodeProvider = newValue } }
    }

    /// Why this app uses Face ID, shown when localauthd asks the user's consent (context option
    /// `FaceUsageDescription`). Defaults to the app's Info.plist `NSFaceIDUsageDescription`; nil
    /// or "" sends none, and face is then not offered to the app while the daemon's `face_consent`
    /// is on. Sent when the daemon context is made: set it before the first check or evaluation.
    public var faceIDUsageDescription: String? {
        get { session.state.withLock { $0.options.faceUsageDescription } }
        set { session.state.withLock { $0.options.faceUsageDescription = newValue } }
    }

    /// The user chose the app's cancel button: the running evaluation ends with `userCancel`.
    public func userCancelled() {
        session.send(.cancel(evaluation: nil))
    }

    /// The user chose the app's fallback button: `deviceOwnerAuthenticationWithBiometrics` ends with
    /// `userFallback`, `deviceOwnerAuthentication` asks for the passcode. Ignored while
    /// `localizedFallbackTitle` is "" (the button is hidden).
    public func userChoseFallback() {
        session.send(.fallback)
    }
}
