// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import Security

extension LAContext {
    /// Evaluates the constraints of `accessControl` for `operation`, showing `localizedReason`:
    /// `reply` gets `(true, nil)` once the user met them, else `(false, error)`. A success counts
    /// for this context as an `evaluatePolicy` success does.
    ///
    /// The constraints become a localauthd requirement (`Context.EvaluateRequirement`):
    /// `.userPresence` → `default` (biometry or the passcode), `.biometryAny` → `biometry`,
    /// `.biometryCurrentSet` → `biometry-current-set`, `.devicePasscode` and
    /// `.applicationPassword` → `passcode` (the application password is the localauthd passcode,
    /// as in `setCredential(_:type:)`); several join with `or` under `.or`, else with `and`.
    /// `.companion` alone or under `and` fails with `companionNotAvailable`; under `.or` it is
    /// skipped. No constraint at all succeeds at once, as on Apple platforms.
    @preconcurrency
    public func evaluateAccessControl(_ accessControl: SecAccessControl, operation: LAAccessControlOperation, localizedReason: String,
                                      reply: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let requirement: String?
        do {
            requirement = try Self.requirement(of: accessControl.flags)
        } catch {
            return Self.replyQueue.async { reply(false, error) }
        }
        guard let requirement else {
            return Self.replyQueue.async { reply(true, nil) }
        }
        let reason = LocalAuthDaemon.acceptableText(localizedReason.isEmpty ? self.localizedReason : localizedReason)
        let call = ContextSession.EvaluationCall(
            perform: { try await $0.evaluateRequirement(requirement, reason: reason, timeout: $1) },
            acceptsPasscode: RequirementTerm.terms(of: requirement).contains(where: \.acceptsPasscode))
        session.send(.evaluate(call) { failure in
            let error = failure.map(RightError.from)
            Self.replyQueue.async { reply(error == nil, error) }
        })
    }

    /// Evaluates `accessControl` for `operation`: returns true, or throws why not.
    public func evaluateAccessControl(_ accessControl: SecAccessControl, operation: LAAccessControlOperation,
                                      localizedReason: String) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            evaluateAccessControl(accessControl, operation: operation, localizedReason: localizedReason) { success, error in
                if success { continuation.resume(returning: true) } else {
                    continuation.resume(throwing: error ?? LAError(.systemCancel, message: "The evaluation failed without an error."))
                }
            }
        }
    }

    /// The requirement expression for access-control `flags`; nil when they have no constraint.
    static func requirement(of flags: SecAccessControlCreateFlags) throws(LAError) -> String? {
        let terms: [(SecAccessControlCreateFlags, RequirementTerm)] = [
            (.userPresence, .default), (.biometryAny, .biometry), (.biometryCurrentSet, .biometryCurrentSet),
            (.devicePasscode, .passcode), (.applicationPassword, .passcode),
        ]
        var chosen: [RequirementTerm] = []
        for (flag, term) in terms where flags.contains(flag) && !chosen.contains(term) { chosen.append(term) }
        let joinsWithOr = flags.contains(.or)
        if flags.contains(.companion), chosen.isEmpty || !joinsWithOr {
            throw LAError(.companionNotAvailable, message: "The access control needs a companion device; localauthd pairs none.")
        }
        guard !chosen.isEmpty else { return nil }
        return (joinsWithOr ? RequirementConnective.or : .and).join(chosen)
    }
}
