// SPDX-License-Identifier: Apache-2.0
/// How the ``RequirementTerm``s of a requirement expression are joined, by its wire word.
public enum RequirementConnective: String, Sendable, Hashable, CaseIterable {
    /// One evaluation offering the union of the terms.
    case or
    /// The terms' evaluations one after another; all must succeed.
    case and

    /// The terms joined by this word: `biometry or passcode`.
    public func join(_ terms: [RequirementTerm]) -> String {
        terms.map(\.rawValue).joined(separator: " \(rawValue) ")
    }
}
