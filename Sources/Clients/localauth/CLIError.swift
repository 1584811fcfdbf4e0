// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus

/// Why a command did not succeed; each case has one exit status and a message a person can act on.
enum CLIError: Error, Sendable {
    case usage(String)
    case unreachable(String)
    case accessDenied(String)
    /// An error of the contract with the daemon's message; `retryAfter` (Unix seconds, 0 for "until
    /// an administrator resets it") when the error carries it (`PasscodeLockout`).
    case authentication(LocalAuthErrorName, String, retryAfter: UInt64? = nil)
    case refused(String)
    case temporary(String)
    case failed(String)

    var exitStatus: Int32 {
        switch self {
        case .usage: ExitStatus.usage
        case .unreachable: ExitStatus.unreachable
        case .accessDenied: ExitStatus.accessDenied
        case .authentication(let error, _, _): error.exitStatus
        case .refused: ExitStatus.refused
        case .temporary: ExitStatus.temporary
        case .failed: ExitStatus.failed
        }
    }

    var message: String {
        switch self {
        case .usage(let message), .unreachable(let message), .accessDenied(let message), .refused(let message),
             .temporary(let message), .failed(let message):
            message
        case .authentication(let error, let daemonMessage, _): error.feedback(daemonMessage: daemonMessage)
        }
    }

    /// The stable `--json` spelling: `{"error": {"name", "code"?, "retryAfter"?, "exitStatus", "message"}}`.
    var json: JSONValue {
        var fields: [(String, JSONValue)] = []
        switch self {
        case .authentication(let error, _, let retryAfter):
            fields = [("name", .string(error.swiftName))] + (error.laErrorCode.map { [("code", .int($0.rawValue))] } ?? [])
                + (retryAfter.map { [("retryAfter", .int(Int(clamping: $0)))] } ?? [])
        case .usage: fields = [("name", "usage")]
        case .unreachable: fields = [("name", "unreachable")]
        case .accessDenied: fields = [("name", "accessDenied")]
        case .refused: fields = [("name", "refused")]
        case .temporary: fields = [("name", "temporary")]
        case .failed: fields = [("name", "failed")]
        }
        fields += [("exitStatus", .int(Int(exitStatus))), ("message", .string(message))]
        return .object(fields)
    }

    /// Translates a D-Bus error; `bus` names the bus for the "not reachable" hint.
    init(_ error: DBusError, bus: String) {
        switch LocalAuthErrorName(dbusName: error.name.rawValue) {
        case .busy?:
            self = .temporary(error.message)
            return
        case .notEvaluating?:
            self = .refused(error.message)
            return
        case let name?:
            self = .authentication(name, error.message, retryAfter: name.detailsSignature == "t" ? error.details.first?.uint64 : nil)
            return
        case nil:
            break
        }
        switch error.name {
        case .accessDenied:
            self = .accessDenied("Access denied: \(error.message)")
        case .serviceUnknown, .nameHasNoOwner:
            self = .unreachable("localauthd is not running on \(bus) (no owner of org.localauth.LocalAuthentication1). Start it (systemctl start localauthd, or localauthd --session), or choose another bus with --system, --session or --address.")
        case .noReply, .timeout:
            self = .unreachable("localauthd did not reply in time on \(bus): \(error.message) (raise --timeout?)")
        case .disconnected:
            self = .unreachable("The connection to \(bus) was lost: \(error.message)")
        case .invalidArgs, .notSupported, .unknownMethod, .unknownObject, .unknownInterface, .unknownProperty:
            self = .refused(error.message)
        case .limitsExceeded:
            self = .temporary(error.message)
        default:
            self = .failed("\(error.message) (\(error.name.rawValue))")
        }
    }
}
