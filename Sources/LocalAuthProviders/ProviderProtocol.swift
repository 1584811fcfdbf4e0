// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus

/// Provider protocol v1 on the bus: the names providers and localauthd use, and the interface
/// localauthd serves for providers. `dbus/org.localauth.Provider1.xml` and
/// `dbus/org.localauth.LocalAuthentication1.ProviderHost.xml` document the same contract.
public enum ProviderProtocol {
    /// The interface a provider serves at ``providerPath``.
    public static let providerInterface = "org.localauth.Provider1"
    public static let providerPath = "/org/localauth/Provider1"
    /// Errors a provider returns: `org.localauth.Provider1.Error.<Name>`.
    public static let providerErrorPrefix = "org.localauth.Provider1.Error."
    /// The protocol minor version this daemon speaks within Provider1.
    public static let hostVersion: UInt32 = 1

    /// Where providers report, on localauthd's own bus name.
    public static let hostPath = LocalAuthBusNames.managerPath + "/providers"

    typealias A = DBusInterfaceDescription.Argument
    typealias M = DBusInterfaceDescription.Method

    /// What a provider serves; the daemon's calls are made to this declaration.
    public static let provider = DBusInterfaceDescription(
        name: providerInterface,
        methods: [
            M("Hello", in: [A("host_version", "u")], out: [A("version", "u"), A("modality", "s"), A("capabilities", "a{sv}")]),
            M("Arm", in: [A("session", "t"), A("user", "u"), A("templates", "as"), A("options", "a{sv}")]),
            M("Disarm", in: [A("session", "t")]),
            M("EnrollStart", in: [A("enrollment", "t"), A("user", "u"), A("label", "s")], out: [A("stages", "u")]),
            M("EnrollCancel", in: [A("enrollment", "t")]),
            M("ListTemplates", in: [A("user", "u")], out: [A("templates", "as")]),
            M("DeleteTemplate", in: [A("user", "u"), A("template", "s")]),
        ])

    public static let host = DBusInterfaceDescription(
        name: LocalAuthBusNames.busName + ".ProviderHost",
        methods: [
            M("ReportAttempt", in: [A("session", "t"), A("result", "s"), A("detail", "s")]),
            M("ReportEnrollment", in: [A("enrollment", "t"), A("status", "s"), A("completed_stages", "u"), A("detail", "s")]),
            M("ReportAvailability", in: [A("available", "b")]),
        ])
}
