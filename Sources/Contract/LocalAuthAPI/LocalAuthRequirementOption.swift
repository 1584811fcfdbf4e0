// SPDX-License-Identifier: Apache-2.0
/// The keys of the options of `Context.EvaluateRequirement` and `Context.CanEvaluateRequirement` (`a{sv}`).
public enum LocalAuthRequirementOption: String, CaseIterable, Sendable {
    /// The biometric domain state the requirement's `biometry-current-set` term was made with
    /// (`EvaluatedPolicyDomainState` of an earlier evaluation): it fails with `RightInvalidated`
    /// when the user's enrollments differ now.
    case domainState = "DomainState"

    /// The D-Bus signature of the value under this key.
    public var signature: String {
        switch self {
        case .domainState: "ay"
        }
    }
}
