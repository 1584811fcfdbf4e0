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
