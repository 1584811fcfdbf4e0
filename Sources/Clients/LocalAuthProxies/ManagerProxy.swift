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
        try await proxy.call(ManagerMethod.createContext, options)
    }

    /// Keyed by ``LocalAuthUserStateKey``.
    public func userState() async throws -> [String: DBusValue] {
        try await proxy.call(ManagerMethod.getUserState)
    }

    /// Passcodes are `s` arguments: a ``DBusSecret`` (wiped when released) or a plain string in tests.
    public func setPasscode(current: DBusValue, new: DBusValue) async throws {
        try await proxy.call(ManagerMethod.setPasscode, try DBusProxy.secret(current), try DBusProxy.secret(new))
    }

    public func removePasscode(current: DBusValue) async throws {
        try await proxy.call(ManagerMethod.removePasscode, try DBusProxy.secret(current))
    }

    public func enroll(modality: String, label: String, passcode: DBusValue, timeout: Duration? = nil) async throws {
        try await proxy.call(ManagerMethod.enroll, modality, label, try DBusProxy.secret(passcode), timeout: timeout)
    }

    public func unenroll(modality: String, label: String, passcode: DBusValue) async throws {
        try await proxy.call(ManagerMethod.unenroll, modality, label, try DBusProxy.secret(passcode))
    }

    public func setRequireAttention(_ enabled: Bool, passcode: DBusValue) async throws {
        try await proxy.call(ManagerMethod.setRequireAttention, enabled, try DBusProxy.secret(passcode))
    }

    public func resetLockout(uid: UInt32) async throws {
        try await proxy.call(ManagerMethod.resetLockout, uid)
    }

    public func cancelEnrollment() async throws {
        try await proxy.call(ManagerMethod.cancelEnrollment)
    }

    public func registerAgent(locale: String, options: [String: DBusValue] = [:]) async throws {
        try await proxy.call(ManagerMethod.registerAgent, locale, options)
    }

    public func unregisterAgent() async throws {
        try await proxy.call(ManagerMethod.unregisterAgent)
    }

    public func agentResponse(cookie: String, response: String, passcode: DBusValue) async throws {
        try await proxy.call(ManagerMethod.agentResponse, cookie, response, try DBusProxy.secret(passcode))
    }

    /// Application identity → allowed.
    public func faceConsents() async throws -> [(app: String, allowed: Bool)] {
        try await proxy.call(ManagerMethod.getFaceConsents)
    }

    public func setFaceConsent(app: String, allowed: Bool, passcode: DBusValue) async throws {
        try await proxy.call(ManagerMethod.setFaceConsent, app, allowed, try DBusProxy.secret(passcode))
    }

    /// `GetBackends`: the `Backends` property's value, `a(ssba{sv})`.
    public func backends() async throws -> DBusValue {
        try await proxy.call(ManagerMethod.getBackends)
    }

    public func version() async throws -> String {
        try await proxy.property("Version").string!
    }
}
