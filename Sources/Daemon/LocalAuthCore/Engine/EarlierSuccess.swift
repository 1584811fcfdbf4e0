// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// What a context's last successful evaluation established, kept until the context is invalidated.
///
/// Apple's rule ("Logging a User into Your App with Face ID or Touch ID"): once an evaluation of an
/// `LAContext` succeeded, later evaluations of that context succeed without asking the user again;
/// an app creates a new context to make the user authenticate again. It is independent of the
/// allowable reuse duration, which is about the device unlock, not about the context.
///
/// Which policies it satisfies follows what the user proved: a biometric match (or a reuse of a
/// biometric unlock) satisfies policies 1, 2 and 4; a passcode satisfies policy 2 only, so a
/// biometrics-only evaluation after it still asks for biometry. Refusals still come first (no
/// passcode, biometry locked out, passcode locked); any earlier success is set aside while biometry
/// is locked out or the passcode is delayed (as the reuse window is), and a biometric success lapses
/// when the user's enrollments change (the domain state it was made under is gone). Unlock contexts never reuse a
/// success: a device unlock always tests the user, as on Apple platforms.
struct EarlierSuccess: Sendable, Hashable {
    let success: EvaluationSuccess
    /// The user's domain state when it succeeded.
    let domainState: [UInt8]

    /// Whether an evaluation of a policy of `kind` succeeds now because of it.
    func satisfies(_ kind: LAPolicy.Kind, domainStateNow: [UInt8]) -> Bool {
        switch success {
        case .passcode:
            return kind == .biometricsOrPasscode
        case .biometricMatch, .reuse, .earlierSuccess:
            guard domainStateNow == domainState else { return false }
            switch kind {
            case .biometricsOnly, .biometricsOrPasscode: return true
            case .companion: return false
            }
        }
    }
}
