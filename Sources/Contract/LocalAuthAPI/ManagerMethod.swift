// SPDX-License-Identifier: Apache-2.0
/// The methods of ``LocalAuthInterface/manager``, served by localauthd at ``LocalAuthBusNames/managerPath``.
public enum ManagerMethod {
    private typealias A = DBusInterfaceDescription.Argument

    public static let createContext = BusMethod<BusWire.Vardict, BusWire.ObjectPath>(
        "CreateContext", in: [A("options", "a{sv}")], out: [A("context", "o")])
    public static let getUserState = BusMethod<BusWire.Vardict>("GetUserState", out: [A("state", "a{sv}")])
    public static let setPasscode = BusMethod<BusWire.Secret, BusWire.Secret, BusWire.Nothing>(
        "SetPasscode", in: [A("current", "s", secret: true), A("new", "s", secret: true)])
    public static let removePasscode = BusMethod<BusWire.Secret, BusWire.Nothing>("RemovePasscode", in: [A("current", "s", secret: true)])
    public static let enroll = BusMethod<String, String, BusWire.Secret, BusWire.Nothing>(
        "Enroll", in: [A("modality", "s"), A("label", "s"), A("passcode", "s", secret: true)])
    public static let unenroll = BusMethod<String, String, BusWire.Secret, BusWire.Nothing>(
        "Unenroll", in: [A("modality", "s"), A("label", "s"), A("passcode", "s", secret: true)])
    public static let setRequireAttention = BusMethod<Bool, BusWire.Secret, BusWire.Nothing>(
        "SetRequireAttention", in: [A("enabled", "b"), A("passcode", "s", secret: true)])
    public static let resetLockout = BusMethod<UInt32, BusWire.Nothing>("ResetLockout", in: [A("uid", "u")])
    public static let cancelEnrollment = BusMethod<BusWire.Nothing>("CancelEnrollment")
    public static let registerAgent = BusMethod<String, BusWire.Vardict, BusWire.Nothing>(
        "RegisterAgent", in: [A("locale", "s"), A("options", "a{sv}")])
    public static let unregisterAgent = BusMethod<BusWire.Nothing>("UnregisterAgent")
    public static let agentResponse = BusMethod<String, String, BusWire.Secret, BusWire.Nothing>(
        "AgentResponse", in: [A("cookie", "s"), A("response", "s"), A("passcode", "s", secret: true)])
    public static let getFaceConsents = BusMethod<BusWire.FaceConsents>("GetFaceConsents", out: [A("decisions", "a(sb)")])
    public static let setFaceConsent = BusMethod<String, Bool, BusWire.Secret, BusWire.Nothing>(
        "SetFaceConsent", in: [A("app", "s"), A("allowed", "b"), A("passcode", "s", secret: true)])
    public static let getBackends = BusMethod<BusWire.Backends>("GetBackends", out: [A("backends", "a(ssba{sv})")])

    /// In the order of `dbus/org.localauth.LocalAuthentication1.Manager.xml`.
    public static let all: [DBusInterfaceDescription.Method] = [
        createContext.description, getUserState.description, setPasscode.description, removePasscode.description,
        enroll.description, unenroll.description, setRequireAttention.description, resetLockout.description,
        cancelEnrollment.description, registerAgent.description, unregisterAgent.description, agentResponse.description,
        getFaceConsents.description, setFaceConsent.description, getBackends.description,
    ]
}
