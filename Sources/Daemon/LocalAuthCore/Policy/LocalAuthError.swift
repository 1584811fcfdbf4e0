// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// Every error the policy core reports: an LAError of Apple's model, or a request the core refuses.
public struct LocalAuthError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// An outcome of LocalAuthentication's model.
        case authentication(LAErrorCode)
        /// An argument out of range or of the wrong shape; nothing changed.
        case invalidArgument
        /// A second evaluation on a context that is already evaluating.
        case busy
        /// A passcode submitted while no passcode-capable evaluation runs.
        case notEvaluating
        /// Fallback asked for while the fallback title is empty.
        case notSupported
        /// The caller may not do this (not the owner, not privileged).
        case accessDenied
        /// A per-client or global limit is reached.
        case limitsExceeded
        /// No such context (never existed, or forgotten long after invalidation).
        case unknownContext
        /// The service could not complete the request (state could not be saved, hashing failed).
        case serviceFailure
        /// No such right for this user and application (also when it is another's: nothing is revealed).
        case rightNotFound
        /// The right exists but this context has not authorized it (or the authorization ended).
        case rightNotAuthorized
        /// A `biometry-current-set` right whose enrollments changed since it was saved.
        case rightInvalidated
    }

    public let kind: Kind
    public let message: String
    /// For `passcodeLockout`: when a passcode may be tried again; nil when only an administrator can unlock.
    public let retryAfter: UnixTime?

    public init(_ kind: Kind, _ message: String, retryAfter: UnixTime? = nil) {
        self.kind = kind
        self.message = message
        self.retryAfter = retryAfter
    }

    public init(_ code: LAErrorCode, _ message: String? = nil, retryAfter: UnixTime? = nil) {
        self.init(.authentication(code), message ?? code.defaultMessage, retryAfter: retryAfter)
    }

    /// The LAError code, when this is one.
    public var code: LAErrorCode? {
        if case .authentication(let code) = kind { return code }
        return nil
    }

    public var description: String { message }
}
