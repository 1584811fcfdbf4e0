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
    private typealias P = DBusInterfaceDescription.Property
    private typealias S = DBusInterfaceDescription.Signal

    /// Served by localauthd at ``LocalAuthBusNames/managerPath``.
    public static let manager = DBusInterfaceDescription(
        name: LocalAuthBusNames.managerInterface,
        methods: ManagerMethod.all,
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
        methods: ContextMethod.all,
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
        methods: RightsMethod.all,
        properties: [P("KeyProtection", "s", changes: .const)])

    /// Served by localauthd at ``LocalAuthBusNames/simulatorPath``.
    public static let simulator = DBusInterfaceDescription(
        name: LocalAuthBusNames.simulatorInterface,
        methods: SimulatorMethod.all,
        properties: [P("Pending", "u", changes: .never)])

    /// Served by each agent at ``LocalAuthBusNames/agentPath``; localauthd calls it without
    /// expecting a reply.
    public static let agent = DBusInterfaceDescription(
        name: LocalAuthBusNames.agentInterface,
        methods: AgentMethod.all)

    /// Served by localauthd at ``LocalAuthBusNames/providerHostPath`` for registered providers.
    public static let providerHost = DBusInterfaceDescription(
        name: LocalAuthBusNames.providerHostInterface,
        methods: ProviderHostMethod.all)

    /// Served by each provider at ``LocalAuthBusNames/providerPath``; localauthd calls it.
    public static let provider = DBusInterfaceDescription(
        name: LocalAuthBusNames.providerInterface,
        methods: ProviderMethod.all)

    /// Every interface, for the contract test and generators.
    public static let all = [manager, context, rights, simulator, agent, providerHost, provider]
}
