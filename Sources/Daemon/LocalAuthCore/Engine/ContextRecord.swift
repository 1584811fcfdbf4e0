// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// A live context as the engine keeps it.
struct ContextRecord: Sendable {
    let id: ContextID
    let owner: ClientID
    /// The uid of the connection that created it, for the per-user limit.
    let ownerUID: UInt32
    /// The user the context authenticates: the caller, or the user a privileged caller named.
    let user: UInt32
    var options: ContextOptions
    /// Another user asking to act as ``user``: its failures count in its own ledger.
    var foreignApplicant: UInt32? { options.foreignApplicant(of: user) }

    /// What its owner is shown of `prompt`: all of it, unless another user is asking
    /// (``ForeignApplicantPrompt``).
    func visible(_ prompt: Prompt, reason: String) -> Prompt {
        foreignApplicant == nil ? prompt : ForeignApplicantPrompt.hiding(prompt, options: options, reason: reason)
    }
    /// `none` until canEvaluatePolicy is first called.
    var biometryType: LABiometryType = .none
    var domainState: [UInt8] = []
    /// Set by a successful evaluation; later evaluations it satisfies succeed at once.
    var earlierSuccess: EarlierSuccess?
    var evaluation: RunningEvaluation?
    /// Rights this context authorized, with the generation each was authorized at: a replaced
    /// right (new generation) is no longer authorized.
    var authorizedRights: [RightKey: UInt64] = [:]
    /// The right (or requirement) being authorized, across the evaluations of an `and` requirement.
    var rightAuthorization: RightAuthorization?
    /// When the last evaluation of this context ended in a biometric match (not a passcode, a
    /// reuse or an earlier success); nil once another evaluation starts. For the login password.
    var lastBiometricMatch: BootTime?
    /// The stored login password was released through this context (at most once).
    var loginPasswordReleased = false
    /// What observers last saw, so only real changes are announced.
    var published: Published

    struct Published: Sendable, Hashable {
        var state: ContextState
        var listening: BiometricModalitySet
    }

    init(id: ContextID, owner: ClientID, ownerUID: UInt32, user: UInt32, options: ContextOptions) {
        self.id = id
        self.owner = owner
        self.ownerUID = ownerUID
        self.user = user
        self.options = options
        self.published = Published(state: .idle, listening: [])
    }
}

/// An evaluation in flight on a context, with the caller waiting for its end.
struct RunningEvaluation: Sendable {
    var machine: Evaluation
    let policy: LAPolicy
    let reason: String
    /// Orders sensor claims (oldest first) and tells evaluations of one context apart.
    let serial: UInt64
    /// Called once, when the evaluation ends.
    let reply: @Sendable (Result<EvaluationSuccess, LocalAuthError>) -> Void
}
