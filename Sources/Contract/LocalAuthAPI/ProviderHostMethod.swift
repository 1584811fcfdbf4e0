// SPDX-License-Identifier: Apache-2.0
/// The methods of ``LocalAuthInterface/providerHost``, served by localauthd at
/// ``LocalAuthBusNames/providerHostPath`` for registered providers.
public enum ProviderHostMethod {
    private typealias A = DBusInterfaceDescription.Argument

    public static let reportAttempt = BusMethod<UInt64, String, String, BusWire.Nothing>(
        "ReportAttempt", in: [A("session", "t"), A("result", "s"), A("detail", "s")])
    public static let reportEnrollment = BusMethod<UInt64, String, UInt32, String, BusWire.Nothing>(
        "ReportEnrollment", in: [A("enrollment", "t"), A("status", "s"), A("completed_stages", "u"), A("detail", "s")])
    public static let reportAvailability = BusMethod<Bool, BusWire.Nothing>("ReportAvailability", in: [A("available", "b")])

    /// In the order of `dbus/org.localauth.LocalAuthentication1.ProviderHost.xml`.
    public static let all: [DBusInterfaceDescription.Method] = [
        reportAttempt.description, reportEnrollment.description, reportAvailability.description,
    ]
}
