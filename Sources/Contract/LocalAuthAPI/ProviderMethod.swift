// SPDX-License-Identifier: Apache-2.0
/// The methods of ``LocalAuthInterface/provider``, served by each provider at
/// ``LocalAuthBusNames/providerPath``; localauthd calls them.
public enum ProviderMethod {
    private typealias A = DBusInterfaceDescription.Argument

    public static let hello = BusMethod<UInt32, BusWire.HelloReply>(
        "Hello", in: [A("host_version", "u")], out: [A("version", "u"), A("modality", "s"), A("capabilities", "a{sv}")])
    public static let arm = BusMethod<UInt64, UInt32, [String], BusWire.Vardict, BusWire.Nothing>(
        "Arm", in: [A("session", "t"), A("user", "u"), A("templates", "as"), A("options", "a{sv}")])
    public static let disarm = BusMethod<UInt64, BusWire.Nothing>("Disarm", in: [A("session", "t")])
    public static let enrollStart = BusMethod<UInt64, UInt32, String, UInt32>(
        "EnrollStart", in: [A("enrollment", "t"), A("user", "u"), A("label", "s")], out: [A("stages", "u")])
    public static let enrollCancel = BusMethod<UInt64, BusWire.Nothing>("EnrollCancel", in: [A("enrollment", "t")])
    public static let listTemplates = BusMethod<UInt32, [String]>("ListTemplates", in: [A("user", "u")], out: [A("templates", "as")])
    public static let deleteTemplate = BusMethod<UInt32, String, BusWire.Nothing>("DeleteTemplate", in: [A("user", "u"), A("template", "s")])

    /// In the order of `dbus/org.localauth.LocalAuthentication1.Provider.xml`.
    public static let all: [DBusInterfaceDescription.Method] = [
        hello.description, arm.description, disarm.description, enrollStart.description, enrollCancel.description,
        listTemplates.description, deleteTemplate.description,
    ]
}
