// SPDX-License-Identifier: Apache-2.0
/// Every interface of API v1 and provider protocol v1, declared once: the daemon's dispatch tables
/// are checked against these declarations (a table row per member), its introspection is rendered
/// from them, clients' proxies call through them, and ContractTests compares them with `dbus/*.xml`.
/// Error names are ``LocalAuthErrorName``; `a{sv}` keys are ``LocalAuthUserStateKey``,
/// ``LocalAuthContextOption``, ``LocalAuthBackendDetailKey``, ``LocalAuthRightKey``,
/// ``LocalAuthExchangeKeysParameter`` and ``LocalAuthRequirementOption``.
public enum LocalAuthInterface {
    /// `Manager.Version`.
    public static let version = "1.0.0"

    private typealias A = DBusInterfaceDescription.Argument
    private typealias M = DBusInterfaceDescription.Method
    private typealias P = DBusInterfaceDescription.Property
    private typealias S = DBusInterfaceDescription.Signal

    /// Served by localauthd at ``LocalAuthBusNames/managerPath``.
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
            M("RegisterAgent", in: [A("locale", "s"), A("options", "a{sv}")]),
            M("UnregisterAgent"),
            M("AgentResponse", in: [A("cookie", "s"), A("response", "s"), A("passcode", "s", secret: true)]),
            M("GetFaceConsents", out: [A("decisions", "a(sb)")]),
            M("SetFaceConsent", in: [A("app", "s"), A("allowed", "b"), A("passcode", "s", secret: true)]),
            M("GetBackends", out: [A("backends", "a(ssba{sv})")]),
        ],
        signals: [
            S("UserStateChanged", [A("state", "a{sv}")]),
            S("EnrollProgress", [
                A("modality", "s"), A("status", "s"), A("completed_stages", "u"), A("stages", "u"), A("detail", "s"),
            ]),
        ],
        properties: [P("Version", "s", changes: .const), P("Backends", "a(ssba{sv})", changes: .emits)])

    /// Served by localauthd at each ``LocalAuthBusNames/contextPath(_:)``.
    public static let context = DBusInterfaceDescription(
        name: LocalAuthBusNames.contextInterface,
        methods: [
            M("CanEvaluatePolicy", in: [A("policy", "u")]),
            M("EvaluatePolicy", in: [A("policy", "u"), A("localizedReason", "s")]),
            M("SubmitPasscode", in: [A("passcode", "s", secret: true)]),
            M("Fallback"),
            M("Cancel"),
            M("Invalidate"),
            M("AuthorizeRight", in: [A("identifier", "s"), A("localizedReason", "s")]),
            M("CheckCanAuthorizeRight", in: [A("identifier", "s")]),
            M("DeauthorizeRight", in: [A("identifier", "s")]),
            M("EvaluateRequirement", in: [A("requirement", "s"), A("localizedReason", "s"), A("options", "a{sv}")]),
            M("CanEvaluateRequirement", in: [A("requirement", "s"), A("options", "a{sv}")]),
            M("LoadSecret", in: [A("identifier", "s")], out: [A("secret", "ay")]),
            M("Sign", in: [A("identifier", "s"), A("algorithm", "s"), A("data", "ay")], out: [A("signature", "ay")]),
            M("Decrypt", in: [A("identifier", "s"), A("algorithm", "s"), A("ciphertext", "ay")], out: [A("plaintext", "ay")]),
            M("ExchangeKeys", in: [A("identifier", "s"), A("public_key", "ay"), A("algorithm", "s"), A("parameters", "a{sv}")],
              out: [A("shared", "ay")]),
            M("ReleaseLoginPassword", out: [A("password", "s")]),
            M("DiscardLoginPassword"),
        ],
        signals: [S("Prompt", [A("kind", "s"), A("message", "s")])],
        properties: [
            P("BiometryType", "u", changes: .emits),
            P("LocalizedFallbackTitle", "s", .readwrite, changes: .emits),
            P("LocalizedCancelTitle", "s", .readwrite, changes: .emits),
            P("InteractionNotAllowed", "b", .readwrite, changes: .emits),
            P("AllowableReuseDuration", "d", .readwrite, changes: .emits),
            P("EvaluatedPolicyDomainState", "ay", changes: .emits),
            P("State", "s", changes: .emits),
        ])

    /// Served by localauthd at ``LocalAuthBusNames/rightsPath``: the caller's saved rights (keys
    /// and secrets that need an authentication to use, Apple's `LARightStore`). A right's `a{sv}`
    /// keys are ``LocalAuthRightKey``; algorithms are `RightKeyAlgorithm` raw values.
    public static let rights = DBusInterfaceDescription(
        name: LocalAuthBusNames.rightsInterface,
        methods: [
            M("SaveRight", in: [A("identifier", "s"), A("requirement", "s"), A("secret", "ay", secret: true), A("options", "a{sv}")],
              out: [A("right", "a{sv}")]),
            M("GetRight", in: [A("identifier", "s")], out: [A("right", "a{sv}")]),
            M("ListRights", in: [A("all_applications", "b")], out: [A("rights", "a(ss)")]),
            M("RemoveRight", in: [A("identifier", "s")]),
            M("RemoveAllRights"),
            M("RemoveApplicationRight", in: [A("application", "s"), A("identifier", "s"), A("passcode", "s", secret: true)]),
            M("Encrypt", in: [A("public_key", "ay"), A("algorithm", "s"), A("plaintext", "ay", secret: true)], out: [A("ciphertext", "ay")]),
            M("Verify", in: [A("public_key", "ay"), A("algorithm", "s"), A("signed_data", "ay"), A("signature", "ay")],
              out: [A("valid", "b")]),
            M("StoreLoginPassword", in: [A("password", "s", secret: true)]),
            M("RemoveLoginPassword"),
        ],
        properties: [P("KeyProtection", "s", changes: .const)])

    /// Served by localauthd at ``LocalAuthBusNames/simulatorPath``.
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

    /// Served by each agent at ``LocalAuthBusNames/agentPath``; localauthd calls it without
    /// expecting a reply.
    public static let agent = DBusInterfaceDescription(
        name: LocalAuthBusNames.agentInterface,
        methods: [
            M("BeginAuthentication", in: [A("handle", "s"), A("cookie", "s"), A("request", "a{sv}")]),
            M("UpdateAuthentication", in: [A("handle", "s"), A("cookie", "s"), A("update", "a{sv}")]),
            M("EndAuthentication", in: [A("handle", "s"), A("result", "s")]),
        ])

    /// Served by localauthd at ``LocalAuthBusNames/providerHostPath`` for registered providers.
    public static let providerHost = DBusInterfaceDescription(
        name: LocalAuthBusNames.providerHostInterface,
        methods: [
            M("ReportAttempt", in: [A("session", "t"), A("result", "s"), A("detail", "s")]),
            M("ReportEnrollment", in: [A("enrollment", "t"), A("status", "s"), A("completed_stages", "u"), A("detail", "s")]),
            M("ReportAvailability", in: [A("available", "b")]),
        ])

    /// Served by each provider at ``LocalAuthBusNames/providerPath``; localauthd calls it.
    public static let provider = DBusInterfaceDescription(
        name: LocalAuthBusNames.providerInterface,
        methods: [
            M("Hello", in: [A("host_version", "u")], out: [A("version", "u"), A("modality", "s"), A("capabilities", "a{sv}")]),
            M("Arm", in: [A("session", "t"), A("user", "u"), A("templates", "as"), A("options", "a{sv}")]),
            M("Disarm", in: [A("session", "t")]),
            M("EnrollStart", in: [A("enrollment", "t"), A("user", "u"), A("label", "s")], out: [A("stages", "u")]),
            M("EnrollCancel", in: [A("enrollment", "t")]),
            M("ListTemplates", in: [A("user", "u")], out: [A("templates", "as")]),
            M("DeleteTemplate", in: [A("user", "u"), A("template", "s")]),
        ])

    /// Every interface, for the contract test and generators.
    public static let all = [manager, context, rights, simulator, agent, providerHost, provider]
}
