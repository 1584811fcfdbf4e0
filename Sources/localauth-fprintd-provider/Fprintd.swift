// SPDX-License-Identifier: Apache-2.0
import LocalAuthDBus

/// fprintd's D-Bus API (`net.reactivated.Fprint`, fprintd 1.94), the calls this provider makes.
///
/// Every call has a bound (`timeout`): fprintd asks polkit before most of them, and a polkit that
/// waits for an authentication agent must not hang an evaluation.
struct Fprintd: Sendable {
    static let busName = "net.reactivated.Fprint"
    static let managerPath = "/net/reactivated/Fprint/Manager"
    static let managerInterface = "net.reactivated.Fprint.Manager"
    static let deviceInterface = "net.reactivated.Fprint.Device"

    let connection: DBusConnection
    let timeout: Duration

    /// The reader fprintd offers first. Throws `FprintdError.noDevice` when there is none.
    func defaultDevice() async throws(FprintdError) -> String {
        let reply = try await call(Self.managerPath, Self.managerInterface, "GetDefaultDevice")
        guard let path = reply.first?.objectPath else { throw .unexpected("GetDefaultDevice returned no object path") }
        return path
    }

    /// The fingers fprintd holds for `user` (empty when none).
    func enrolledFingers(device: String, user: String) async throws(FprintdError) -> [String] {
        do {
            return try await call(device, Self.deviceInterface, "ListEnrolledFingers", [.string(user)]).first?.strings ?? []
        } catch .noEnrolledPrints {
            return []
        }
    }

    /// Captures one enrollment needs on `device` (the `num-enroll-stages` property).
    func enrollStages(device: String) async throws(FprintdError) -> UInt32 {
        let reply = try await call(
            device, "org.freedesktop.DBus.Properties", "Get", [.string(Self.deviceInterface), .string("num-enroll-stages")])
        guard let stages = reply.first?.unwrapped.int32, stages > 0 else { throw .unexpected("num-enroll-stages is not a positive integer") }
        return UInt32(stages)
    }

    func claim(device: String, user: String) async throws(FprintdError) {
        _ = try await call(device, Self.deviceInterface, "Claim", [.string(user)])
    }

    func release(device: String) async throws(FprintdError) {
        _ = try await call(device, Self.deviceInterface, "Release")
    }

    func verifyStart(device: String, finger: String) async throws(FprintdError) {
        _ = try await call(device, Self.deviceInterface, "VerifyStart", [.string(finger)])
    }

    func verifyStop(device: String) async throws(FprintdError) {
        _ = try await call(device, Self.deviceInterface, "VerifyStop")
    }

    func enrollStart(device: String, finger: String) async throws(FprintdError) {
        _ = try await call(device, Self.deviceInterface, "EnrollStart", [.string(finger)])
    }

    func enrollStop(device: String) async throws(FprintdError) {
        _ = try await call(device, Self.deviceInterface, "EnrollStop")
    }

    func deleteEnrolledFinger(device: String, finger: String) async throws(FprintdError) {
        _ = try await call(device, Self.deviceInterface, "DeleteEnrolledFinger", [.string(finger)])
    }

    private func call(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []) async throws(FprintdError) -> [DBusValue] {
        do {
            return try await connection.call(
                destination: Self.busName, path: path, interface: interface, member: member, arguments: arguments, timeout: timeout)
        } catch let error as DBusError {
            throw FprintdError(error, member: member)
        } catch {
            throw .unexpected("\(member): \(error)")
        }
    }
}

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
