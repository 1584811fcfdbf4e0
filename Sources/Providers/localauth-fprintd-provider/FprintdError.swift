// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus

/// What went wrong talking to fprintd, from its error names (`net.reactivated.Fprint.Error.*`) and the bus's.
enum FprintdError: Error, Sendable, CustomStringConvertible {
    /// Nobody owns `net.reactivated.Fprint` and the bus cannot start it.
    case notRunning(String)
    /// fprintd runs but has no reader (`NoSuchDevice`), or the reader went away.
    case noDevice(String)
    /// Another program holds the reader (`AlreadyInUse`, e.g. the lock screen or `pam_fprintd`).
    case alreadyInUse(String)
    /// polkit said no (`PermissionDenied`).
    case permissionDenied(String)
    case noEnrolledPrints
    /// fprintd did not answer within the bound, or the connection failed.
    case noAnswer(String)
    case unexpected(String)

    init(_ error: DBusError, member: String) {
        let message = "fprintd \(member): \(error.message)"
        switch error.name.rawValue {
        case DBusError.Name.serviceUnknown.rawValue, DBusError.Name.nameHasNoOwner.rawValue:
            self = .notRunning("fprintd (net.reactivated.Fprint) is not running and the bus cannot start it; install fprintd")
        case "net.reactivated.Fprint.Error.NoSuchDevice":
            self = .noDevice("no fingerprint reader: \(message)")
        case "net.reactivated.Fprint.Error.AlreadyInUse":
            self = .alreadyInUse("another program holds the fingerprint reader (\(message))")
        case "net.reactivated.Fprint.Error.PermissionDenied":
            self = .permissionDenied("polkit refused the provider's user (\(message)); see the provider's service unit for what fprintd's policy needs")
        case "net.reactivated.Fprint.Error.NoEnrolledPrints":
            self = .noEnrolledPrints
        case DBusError.Name.noReply.rawValue, DBusError.Name.timeout.rawValue, DBusError.Name.disconnected.rawValue:
            self = .noAnswer(message)
        default:
            self = .unexpected("\(message) (\(error.name))")
        }
    }

    var description: String {
        switch self {
        case .notRunning(let m), .noDevice(let m), .alreadyInUse(let m), .permissionDenied(let m), .noAnswer(let m), .unexpected(let m): m
        case .noEnrolledPrints: "no enrolled fingers"
        }
    }
}
