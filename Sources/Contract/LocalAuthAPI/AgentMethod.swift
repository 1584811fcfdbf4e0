// SPDX-License-Identifier: Apache-2.0
/// The methods of ``LocalAuthInterface/agent``, served by each agent at ``LocalAuthBusNames/agentPath``;
/// localauthd sends them without expecting a reply. The `a{sv}` keys are ``LocalAuthAgentKey``.
public enum AgentMethod {
    private typealias A = DBusInterfaceDescription.Argument

    public static let beginAuthentication = BusMethod<String, String, BusWire.Vardict, BusWire.Nothing>(
        "BeginAuthentication", in: [A("handle", "s"), A("cookie", "s"), A("request", "a{sv}")])
    public static let updateAuthentication = BusMethod<String, String, BusWire.Vardict, BusWire.Nothing>(
        "UpdateAuthentication", in: [A("handle", "s"), A("cookie", "s"), A("update", "a{sv}")])
    public static let endAuthentication = BusMethod<String, String, BusWire.Nothing>(
        "EndAuthentication", in: [A("handle", "s"), A("result", "s")])

    /// In the order of `dbus/org.localauth.LocalAuthentication1.Agent.xml`.
    public static let all: [DBusInterfaceDescription.Method] = [
        beginAuthentication.description, updateAuthentication.description, endAuthentication.description,
    ]
}
