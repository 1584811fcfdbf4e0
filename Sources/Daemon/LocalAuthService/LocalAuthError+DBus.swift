// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthDBus

extension LocalAuthError {
    /// The D-Bus error for this outcome: `org.localauth.LocalAuthentication1.Error.<Name>` for
    /// LAErrors, `Busy`, `NotEvaluating` and the rights' errors; the standard names for the rest.
    var dbusError: DBusError {
        switch kind {
        case .authentication(let code): DBusError(DBusError.Name(code.errorName.dbusName), message, details: details(of: code.errorName))
        case .busy: DBusError(DBusError.Name(LocalAuthErrorName.busy.dbusName), message)
        case .notEvaluating: DBusError(DBusError.Name(LocalAuthErrorName.notEvaluating.dbusName), message)
        case .invalidArgument: DBusError(.invalidArgs, message)
        case .notSupported: DBusError(.notSupported, message)
        case .accessDenied: DBusError(.accessDenied, message)
        case .limitsExceeded: DBusError(.limitsExceeded, message)
        case .unknownContext: DBusError(.unknownObject, message)
        case .serviceFailure: DBusError(.failed, message)
        case .rightNotFound: DBusError(DBusError.Name(LocalAuthErrorName.rightNotFound.dbusName), message)
        case .rightNotAuthorized: DBusError(DBusError.Name(LocalAuthErrorName.rightNotAuthorized.dbusName), message)
        case .rightInvalidated: DBusError(DBusError.Name(LocalAuthErrorName.rightInvalidated.dbusName), message)
        }
    }
}

extension LocalAuthError {
    /// The data the contract says `name` carries after the message.
    private func details(of name: LocalAuthErrorName) -> [DBusValue] {
        switch name {
        case .passcodeLockout: [.uint64(retryAfter.map { UInt64(max(0, $0.seconds.rounded(.up))) } ?? 0)]
        default: []
        }
    }
}

extension LAErrorCode {
    /// The contract's name for this code; every code has one (a test holds the two tables together).
    var errorName: LocalAuthErrorName {
        guard let name = LocalAuthErrorName(laErrorCode: self) else {
            preconditionFailure("LAErrorCode \(self) has no error name in LocalAuthAPI")
        }
        return name
    }
}
