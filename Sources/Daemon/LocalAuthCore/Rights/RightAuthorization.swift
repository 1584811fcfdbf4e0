// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// A right (or a requirement without a stored right) being authorized on a context: the
/// evaluations still to run, one after another (more than one for an `and` requirement).
struct RightAuthorization: Sendable {
    /// One evaluation of the requirement.
    enum Step: Sendable, Hashable {
        /// An evaluation of policy 1 (biometry) or 2 (biometry or passcode).
        case policy(LAPolicy)
        /// The passcode alone.
        case passcode

        /// The policy the evaluation runs as (the passcode alone runs as policy 2 without sensors).
        var policy: LAPolicy {
            switch self {
            case .policy(let policy): policy
            case .passcode: .deviceOwnerAuthentication
            }
        }
    }

    /// The stored right, nil for a requirement evaluated without one.
    let right: RightKey?
    /// The generation of ``right`` when the authorization began: a right replaced meanwhile is not authorized.
    let generation: UInt64
    var remaining: [Step]
    let reason: String
    /// Whether every step so far succeeded by a biometric match (no passcode typed): only then
    /// may the context's last biometric match release the stored login password.
    var onlyBiometricMatches = true
    /// Called once, when the last step succeeded or any step failed.
    let reply: @Sendable (Result<Void, LocalAuthError>) -> Void

    /// The evaluations that meet `requirement`; `currentSetValid` says whether the enrollments are
    /// still those a `biometry-current-set` term is bound to. Throws rightInvalidated when nothing
    /// valid is left to evaluate.
    static func steps(for requirement: AuthenticationRequirement, currentSetValid: Bool) throws(LocalAuthError) -> [Step] {
        switch requirement.connective {
        case .or:
            let biometry = requirement.terms.contains { $0.acceptsBiometry && ($0 != .biometryCurrentSet || currentSetValid) }
            let passcode = requirement.terms.contains { $0.acceptsPasscode }
            switch (biometry, passcode) {
            case (true, true): return [.policy(.deviceOwnerAuthentication)]
            case (true, false): return [.policy(.deviceOwnerAuthenticationWithBiometrics)]
            case (false, true): return [.passcode]
            case (false, false): throw invalidated
            }
        case .and:
            return try requirement.terms.map { (term) throws(LocalAuthError) -> Step in
                switch term {
                case .default: return .policy(.deviceOwnerAuthentication)
                case .biometry: return .policy(.deviceOwnerAuthenticationWithBiometrics)
                case .biometryCurrentSet:
                    guard currentSetValid else { throw invalidated }
                    return .policy(.deviceOwnerAuthenticationWithBiometrics)
                case .passcode: return .passcode
                }
            }
        }
    }

    static let invalidated = LocalAuthError(.rightInvalidated, "This right is bound to the biometric enrollments at its save, and they have changed since; save it again.")
}
