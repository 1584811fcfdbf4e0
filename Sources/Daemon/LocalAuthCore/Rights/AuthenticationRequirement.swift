// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// What a right asks of the user before it is authorized (Apple's `LAAuthenticationRequirement`
/// and the access-control flags of `SecAccessControl`), in its wire and record form: one term,
/// or up to ``maximumTerms`` terms all joined by ` or ` or all by ` and `.
///
/// Terms: `default` (the device owner: biometry or passcode, as policy 2), `biometry` (any
/// enrolled biometry, as policy 1), `biometry-current-set` (biometry, and only while the
/// enrollments are those of the save), `passcode` (the passcode only).
public struct AuthenticationRequirement: Sendable, Hashable, CustomStringConvertible {
    /// The most terms a requirement may have.
    public static let maximumTerms = 4
    /// Longer texts are refused before they are split.
    static let maximumLength = 128

    /// In the order written; at least one.
    public let terms: [RequirementTerm]
    /// `or` for a single term.
    public let connective: RequirementConnective

    /// `terms` (at least one) joined by `connective`.
    public init(_ terms: [RequirementTerm], connective: RequirementConnective = .or) {
        precondition(!terms.isEmpty && terms.count <= Self.maximumTerms)
        self.terms = terms
        self.connective = terms.count == 1 ? .or : connective
    }

    /// Reads a requirement from a client; anything else than the grammar is an invalid argument
    /// whose message states the grammar.
    public init(parsing text: String) throws(LocalAuthError) {
        guard text.utf8.count <= Self.maximumLength else { throw Self.grammarError(text) }
        let words = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard words.count % 2 == 1, words.count <= 2 * Self.maximumTerms - 1 else { throw Self.grammarError(text) }
        var terms: [RequirementTerm] = []
        var connective: RequirementConnective?
        for (index, word) in words.enumerated() {
            if index % 2 == 0 {
                guard let term = RequirementTerm(rawValue: word) else { throw Self.grammarError(text) }
                terms.append(term)
            } else {
                guard let joint = RequirementConnective(rawValue: word), connective == nil || connective == joint else { throw Self.grammarError(text) }
                connective = joint
            }
        }
        self.init(terms, connective: connective ?? .or)
    }

    /// Whether the right is bound to the enrollments of its save.
    public var needsCurrentSet: Bool { terms.contains(.biometryCurrentSet) }
    /// Whether any term can be met by biometry.
    public var mentionsBiometry: Bool { terms.contains { $0.acceptsBiometry } }

    /// The wire and record form: terms joined by ` or ` or ` and `.
    public var description: String {
        connective.join(terms)
    }

    static func grammarError(_ text: String) -> LocalAuthError {
        LocalAuthError(.invalidArgument, "\"\(DisplayText.escaped(text, limit: 64))\" is not a requirement: write one term (default, biometry, biometry-current-set or passcode), or up to \(maximumTerms) terms joined all by \" or \" or all by \" and \", e.g. \"biometry or passcode\".")
    }
}
