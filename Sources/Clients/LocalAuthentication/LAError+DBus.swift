// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus

extension LAError {
    /// The error for a failed call to an existing daemon context (the mapping table in docs/swift.md, "Errors").
    ///
    /// `Error.<Name>` becomes the code of that name. `UnknownObject` and `AccessDenied` mean the
    /// daemon no longer knows this context as ours (it restarted, or our connection was replaced):
    /// `invalidContext`. Losing the daemon or the bus: `unavailable(for:)`. `NoReply` (the daemon
    /// died during the evaluation) and every other refusal (`InvalidArgs`, `NotSupported`, `Busy`,
    /// `Failed`, …): `systemCancel`. The daemon's message is kept.
    init(reply error: any Error, policy: LAPolicy) {
        guard let error = error as? DBusError else {
            self.init(.systemCancel, message: "localauthd could not be asked: \(error)")
            return
        }
        if let code = LocalAuthErrorName(dbusName: error.name.rawValue)?.laErrorCode {
            self.init(code, message: error.message)
            return
        }
        switch error.name {
        case .unknownObject, .accessDenied:
            self.init(.invalidContext, message: "localauthd no longer knows this context (\(error.message)); create a new LAContext.")
        case .serviceUnknown, .nameHasNoOwner, .disconnected, .limitsExceeded:
            self = .unavailable(for: policy, because: error)
        default:
            self.init(.systemCancel, message: error.message.isEmpty ? error.name.rawValue : error.message)
        }
    }

    /// The error a policy's evaluation ends with when the daemon call did not succeed.
    init(_ failure: ContextSession.CallFailure, policy: LAPolicy) {
        switch failure {
        case .invalidated: self.init(.invalidContext, message: nil)
        case .unreachable(let error): self = .unavailable(for: policy, because: error)
        case .refused(let error): self.init(reply: error, policy: policy)
        case .busy: self.init(.systemCancel, message: "This LAContext is already evaluating a policy; wait for its reply or use another LAContext.")
        }
    }

    /// What an evaluation or check reports when localauthd cannot be used at all (not running, no
    /// bus, no context to be had): `biometryNotAvailable` for the biometric policies,
    /// `passcodeNotSet` for `deviceOwnerAuthentication`, `companionNotAvailable` for the companion ones.
    static func unavailable(for policy: LAPolicy, because error: any Error) -> LAError {
        let reason = (error as? DBusError)?.message ?? (error as? LAError)?.localizedDescription ?? "\(error)"
        let message = "localauthd cannot be reached (\(reason)). Start it (systemctl start localauthd) or point LOCALAUTH_BUS / LOCALAUTH_BUS_ADDRESS at the bus it runs on."
        switch policy {
        case .deviceOwnerAuthenticationWithBiometrics, .deviceOwnerAuthenticationWithBiometricsOrCompanion:
            return LAError(.biometryNotAvailable, message: message)
        case .deviceOwnerAuthentication:
            return LAError(.passcodeNotSet, message: message)
        case .deviceOwnerAuthenticationWithCompanion, .deviceOwnerAuthenticationWithWristDetection:
            return LAError(.companionNotAvailable, message: message)
        }
    }
}
