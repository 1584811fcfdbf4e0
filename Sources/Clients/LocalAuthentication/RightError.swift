// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import Security

/// The errors of rights, keys and secrets (`LARight`, `LARightStore`, `LASecret`, `LAPrivateKey`,
/// `LAPublicKey`, `evaluateAccessControl`), from the daemon's replies.
///
/// localauthd's own right errors are not LAErrors; they become what Apple's keychain-backed
/// rights report:
/// - `RightNotFound` (no such right for this user and app, also another app's or user's) and
///   `RightInvalidated` (a `biometryCurrentSet` right whose enrollments changed: like Apple's
///   keychain items of that kind, it can never be used again) → `NSError` of
///   `NSOSStatusErrorDomain` with code `errSecItemNotFound` (-25300); the message says which.
/// - `RightNotAuthorized` (a key or secret used before `authorize`, or after `deauthorize`) →
///   `LAError.notInteractive`: using it would need the user, and the operation does not ask.
/// - `InvalidArgs` (an algorithm that does not fit, data too long, a secret never saved) →
///   `NSOSStatusErrorDomain` `errSecParam` (-50).
/// Every other reply maps as for policies (`LAError(reply:policy:)`, policy `deviceOwnerAuthentication`).
enum RightError {
    static func from(_ failure: ContextSession.CallFailure) -> any Error {
        switch failure {
        case .invalidated: LAError(.invalidContext, message: nil)
        case .busy: LAError(.systemCancel, message: "This right is already being authorized; wait for that to end.")
        case .unreachable(let error): LAError.unavailable(for: .deviceOwnerAuthentication, because: error)
        case .refused(let error): from(reply: error)
        }
    }

    /// The error for a failed call to the daemon (a Rights method, or a right's context).
    static func from(reply error: any Error) -> any Error {
        if let error = error as? LAError { return error }
        guard let error = error as? DBusError else { return LAError(reply: error, policy: .deviceOwnerAuthentication) }
        switch LocalAuthErrorName(dbusName: error.name.rawValue) {
        case .rightNotFound?, .rightInvalidated?:
            return status(errSecItemNotFound, error.message)
        case .rightNotAuthorized?:
            return LAError(.notInteractive, message: error.message)
        default:
            if error.name == .invalidArgs { return status(errSecParam, error.message) }
            return LAError(reply: error, policy: .deviceOwnerAuthentication)
        }
    }

    /// An `NSOSStatusErrorDomain` error with `code` and `message`.
    static func status(_ code: OSStatus, _ message: String) -> NSError {
        NSError(domain: NSOSStatusErrorDomain, code: Int(code), userInfo: [NSLocalizedDescriptionKey: message])
    }
}
