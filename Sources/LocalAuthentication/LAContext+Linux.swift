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
    public var passcodeProvider: LAPasscodeProvider? {
        get { session.state.withLock { $0.passcodeProvider } }
        set { session.state.withLock { $0.passcodeProvider = newValue } }
    }

    /// Apple's credential setter. `.applicationPassword` here is the user's localauthd passcode: it is
    /// offered to the next `deviceOwnerAuthentication` evaluation as soon as it starts, or at once to
    /// one already running (also while biometrics listen). A wrong one is dropped, not offered again.
    /// nil clears it. Returns false for `.smartCardPIN` (not supported), a passcode that is not UTF-8
    /// or contains NUL, or an invalidated context. The passcode is kept in memory only, never logged:
    /// its bytes are copied into a buffer that is wiped when the context drops it (and its copy in
    /// the outgoing D-Bus message is wiped once sent). `credential` itself stays yours to wipe, e.g.
    /// with `credential.resetBytes(in: 0..<credential.count)` on your `var`.
    public func setCredential(_ credential: Data?, type: LACredentialType) -> Bool {
        switch type {
        case .smartCardPIN:
            return false
        case .applicationPassword:
            guard !session.state.withLock({ $0.isInvalidated }) else { return false }
            guard let credential else {
                session.setCredential(nil)
                return true
            }
            let passcode = DBusSecret(copying: credential)
            guard passcode.isValidString else { return false }
            session.setCredential(passcode)
            return true
        }
    }

    /// Whether a credential of `type` is set (and not yet found wrong).
    public func isCredentialSet(_ type: LACredentialType) -> Bool {
        switch type {
        case .smartCardPIN: false
        case .applicationPassword: session.state.withLock { $0.credential != nil }
        }
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
