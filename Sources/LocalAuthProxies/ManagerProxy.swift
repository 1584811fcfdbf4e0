// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus

/// `…Manager` at ``LocalAuthBusNames/managerPath``, typed; each call is checked against
/// ``LocalAuthInterface/manager`` (see ``DBusProxy``). Errors are the daemon's `DBusError`s.
public struct ManagerProxy: Sendable {
    public let proxy: DBusProxy

    public init(_ connection: DBusConnection, destination: String = LocalAuthBusNames.busName, timeout: Duration = .seconds(25)) {
        proxy = DBusProxy(LocalAuthInterface.manager, on: connection, destination: destination, path: LocalAuthBusNames.managerPath, timeout: timeout)
    }

    /// The new context's object path.
    public func createContext(options: [String: DBusValue] = [:]) async throws -> String {
        try await proxy.call("CreateContext", [.vardict(options)])[0].objectPath!
    }

    /// Keyed by ``LocalAuthUserStateKey``.
    public func userState() async throws -> [String: DBusValue] {
        try await proxy.call("GetUserState")[0].vardict!
    }

    /// Passcodes are `s` arguments: a ``DBusSecret`` (wiped when released) or a plain string in tests.
    public func setPasscode(current: DBusValue, new: DBusValue) async throws {
        _ = try await proxy.call("SetPasscode", [current, new])
    }

    public func removePasscode(current: DBusValue) async throws {
        _ = try await proxy.call("RemovePasscode", [current])
    }

    public func enroll(modality: String, label: String, passcode: DBusValue, timeout: Duration? = nil) async throws {
        _ = try await proxy.call("Enroll", [.string(modality), .string(label), passcode], timeout: timeout)
    }

    public func unenroll(modality: String, label: String, passcode: DBusValue) async throws {
        _ = try await proxy.call("Unenroll", [.string(modality), .string(label), passcode])
    }

    public func setRequireAttention(_ enabled: Bool, passcode: DBusValue) async throws {
        _ = try await proxy.call("SetRequireAttention", [.bool(enabled), passcode])
    }

    public func resetLockout(uid: UInt32) async throws {
        _ = try await proxy.call("ResetLockout", [.uint32(uid)])
    }

    public func cancelEnrollment() async throws {
        _ = try await proxy.call("CancelEnrollment")
    }

    public func registerAgent(locale: String, options: [String: DBusValue] = [:]) async throws {
        _ = try await proxy.call("RegisterAgent", [.string(locale), .vardict(options)])
    }

    public func unregisterAgent() async throws {
        _ = try await proxy.call("UnregisterAgent")
    }

    public func agentResponse(cookie: String, response: String, passcode: DBusValue) async throws {
        _ = try await proxy.call("AgentResponse", [.string(cookie), .string(response), passcode])
    }

    /// Application identity → allowed.
    public func faceConsents() async throws -> [(app: String, allowed: Bool)] {
        (try await proxy.call("GetFaceConsents")[0].arrayElements ?? []).compactMap { element in
            guard let fields = element.structure, let app = fields[0].string, let allowed = fields[1].bool else { return nil }
            return (app, allowed)
        }
    }

    public func setFaceConsent(app: String, allowed: Bool, passcode: DBusValue) async throws {
        _ = try await proxy.call("SetFaceConsent", [.string(app), .bool(allowed), passcode])
    }

    /// `GetBackends`: the `Backends` property's value, `a(ssba{sv})`.
    public func backends() async throws -> DBusValue {
        try await proxy.call("GetBackends")[0]
    }

    public func version() async throws -> String {
        try await proxy.property("Version").string!
    }
}
