// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus

/// API v1 on the bus: names, paths and the three interfaces. `dbus/*.xml` documents the same
/// contract; a test compares them with what the running daemon introspects.
public enum BusContract {
    public static let busName = LocalAuthBusNames.busName
    public static let managerPath = LocalAuthBusNames.managerPath
    public static let contextRoot = LocalAuthBusNames.contextRoot
    public static let simulatorPath = LocalAuthBusNames.simulatorPath
    public static let errorPrefix = LocalAuthBusNames.errorPrefix
    public static let version = "1.0.0"

    typealias A = DBusInterfaceDescription.Argument
    typealias M = DBusInterfaceDescription.Method
    typealias P = DBusInterfaceDescription.Property

    public static let manager = DBusInterfaceDescription(
        name: LocalAuthBusNames.managerInterface,
        methods: [
            M("CreateContext", in: [A("options", "a{sv}")], out: [A("context", "o")]),
            M("GetUserState", out: [A("state", "a{sv}")]),
            M("SetPasscode", in: [A("current", "s", secret: true), A("new", "s", secret: true)]),
            M("RemovePasscode", in: [A("current", "s", secret: true)]),
            M("Enroll", in: [A("modality", "s"), A("label", "s"), A("passcode", "s", secret: true)]),
            M("Unenroll", in: [A("modality", "s"), A("label", "s"), A("passcode", "s", secret: true)]),
            M("SetRequireAttention", in: [A("enabled", "b"), A("passcode", "s", secret: true)]),
            M("ResetLockout", in: [A("uid", "u")]),
            M("CancelEnrollment"),
        ],
        signals: [
            DBusInterfaceDescription.Signal("UserStateChanged", [A("state", "a{sv}")]),
            DBusInterfaceDescription.Signal("EnrollProgress", [
                A("modality", "s"), A("status", "s"), A("completed_stages", "u"), A("stages", "u"), A("detail", "s"),
            ]),
        ],
        properties: [P("Version", "s", changes: .const), P("Backends", "a(ssba{sv})", changes: .emits)])

    public static let context = DBusInterfaceDescription(
        name: LocalAuthBusNames.contextInterface,
        methods: [
            M("CanEvaluatePolicy", in: [A("policy", "u")]),
            M("EvaluatePolicy", in: [A("policy", "u"), A("localizedReason", "s")]),
            M("SubmitPasscode", in: [A("passcode", "s", secret: true)]),
            M("Fallback"),
            M("Cancel"),
            M("Invalidate"),
        ],
        signals: [DBusInterfaceDescription.Signal("Prompt", [A("kind", "s"), A("message", "s")])],
        properties: [
            P("BiometryType", "u", changes: .emits),
            P("LocalizedFallbackTitle", "s", .readwrite, changes: .emits),
            P("LocalizedCancelTitle", "s", .readwrite, changes: .emits),
            P("InteractionNotAllowed", "b", .readwrite, changes: .emits),
            P("AllowableReuseDuration", "d", .readwrite, changes: .emits),
            P("EvaluatedPolicyDomainState", "ay", changes: .emits),
            P("State", "s", changes: .emits),
        ])

    public static let simulator = DBusInterfaceDescription(
        name: LocalAuthBusNames.simulatorInterface,
        methods: [
            M("Touch", in: [A("finger", "s")]),
            M("FingerprintRetry", in: [A("reason", "s")]),
            M("PresentFace", in: [A("appearance", "s"), A("attentive", "b")]),
            M("SetConnected", in: [A("modality", "s"), A("connected", "b")]),
            M("PressCancel"),
            M("PressFallback"),
            M("Reset"),
        ],
        properties: [P("Pending", "u", changes: .never)])

    static func contextPath(_ id: UInt64) -> String { "\(contextRoot)/\(id)" }

    /// The context number in a context object path, or nil for any other path.
    static func contextNumber(in path: String) -> UInt64? {
        let prefix = contextRoot + "/"
        guard path.hasPrefix(prefix), let number = UInt64(path.dropFirst(prefix.count)), number > 0 else { return nil }
        return number
    }
}
