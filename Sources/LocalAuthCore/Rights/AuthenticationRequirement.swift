// SPDX-License-Identifier: Apache-2.0
/// What a right asks of the user before it is authorized (Apple's `LAAuthenticationRequirement`
/// and the access-control flags of `SecAccessControl`), in its wire and record form: one term,
/// or up to ``maximumTerms`` terms all joined by ` or ` or all by ` and `.
///
/// Terms: `default` (the device owner: biometry or passcode, as policy 2), `biometry` (any
/// enrolled biometry, as policy 1), `biometry-current-set` (biometry, and only while the
/// enrollments are those of the save), `passcode` (the passcode only).
public struct AuthenticationRequirement: Sendable, Hashable, CustomStringConvertible {
    /// One term of a requirement, by its wire name.
    public enum Term: String, Sendable, Hashable, CaseIterable {
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
    }

    /// How the terms are joined, by its wire word.
    public enum Connective: String, Sendable, Hashable {
        /// One evaluation offering the union of the terms.
        case or
        /// The terms' evaluations one after another; all must succeed.
        case and
    }

    /// The most terms a requirement may have.
    public static let maximumTerms = 4
    /// Longer texts are refused before they are split.
    static let maximumLength = 128

    /// In the order written; at least one.
    public let terms: [Term]
    /// `or` for a single term.
    public let connective: Connective

    /// `terms` (at least one) joined by `connective`.
    public init(_ terms: [Term], connective: Connective = .or) {
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
        var terms: [Term] = []
        var connective: Connective?
        for (index, word) in words.enumerated() {
            if index % 2 == 0 {
                guard let term = Term(rawValue: word) else { throw Self.grammarError(text) }
                terms.append(term)
            } else {
                guard let joint = Connective(rawValue: word), connective == nil || connective == joint else { throw Self.grammarError(text) }
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
        terms.map(\.rawValue).joined(separator: " \(connective.rawValue) ")
    }

    static func grammarError(_ text: String) -> LocalAuthError {
        LocalAuthError(.invalidArgument, "\"\(DisplayText.escaped(text, limit: 64))\" is not a requirement: write one term (default, biometry, biometry-current-set or passcode), or up to \(maximumTerms) terms joined all by \" or \" or all by \" and \", e.g. \"biometry or passcode\".")
    }
}
