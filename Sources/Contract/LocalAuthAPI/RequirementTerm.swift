// SPDX-License-Identifier: Apache-2.0
/// One term of a requirement expression (the `requirement` of `Context.EvaluateRequirement`,
/// `Rights.SaveRight` and the rights' records): Apple's `LAAuthenticationRequirement` and the
/// access-control flags of `SecAccessControl`, by wire name. Terms are joined all by
/// ``RequirementConnective/or`` or all by ``RequirementConnective/and``.
public enum RequirementTerm: String, Sendable, Hashable, CaseIterable {
    /// The device owner: biometry or the passcode (policy 2).
    case `default` = "default"
    /// Any enrolled biometry (policy 1).
    case biometry = "biometry"
    /// Biometry, and only while the enrollments are those of the save.
    case biometryCurrentSet = "biometry-current-set"
    /// The passcode only.
    case passcode = "passcode"

    /// Whether the term can be met by a biometric match.
    public var acceptsBiometry: Bool { self != .passcode }
    /// Whether the term can be met by the passcode.
    public var acceptsPasscode: Bool { self == .default || self == .passcode }

    /// The terms of an expression, in order; words that are no term (the connectives, a typo) are skipped.
    public static func terms(of expression: String) -> [RequirementTerm] {
        expression.split(separator: " ").compactMap { RequirementTerm(rawValue: String($0)) }
    }
}
