// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import LocalAuthAPI
import LocalAuthDBus
import Synchronization

/// The agent side of one connection: serves `…Agent` at the agent path, believes only calls from
/// the current owner of localauthd's bus name, and hands each call on as a `Call`, in order.
///
/// Agents come back as polkit's do: the endpoint watches localauthd's name, and when a new owner
/// takes it (a restart, bus activation after an idle exit) registers again with the same locale
/// and options. The daemon refuses a second agent for a session (or a second fallback agent)
/// while the first one's connection lives, so the first to register again keeps the place.
struct AgentEndpoint: Sendable {
    enum Call: Sendable {
        case begin(handle: String, cookie: String, request: [String: DBusValue])
        case update(handle: String, cookie: String, update: [String: DBusValue])
        case end(handle: String, result: String)
        /// localauthd left the bus; its sheets are gone with it.
        case daemonStopped
        /// A new localauthd took the name and this agent is registered with it.
        case registeredAgain
        /// A new owner took the name and this agent does not serve it: localauthd refused it
        /// (another agent registered first), or the owner is not of the first localauthd's uid.
        case refusedAgain(CLIError)
    }

    let client: DaemonClient

    /// `…Agent` as this agent serves it (dbus/org.localauth.LocalAuthentication1.Agent.xml;
    /// ContractTests compares them).
    static let interface = LocalAuthInterface.agent

    /// The unique name of the localauthd this agent believes, and the uid it ran as.
    private final class Daemon: Sendable {
        private struct State {
            /// Believed: its calls are served. nil while the name has no owner, or a new owner is
            /// not yet checked.
            var owner: String?
            /// The name's owner as last announced.
            var latest: String?
            /// Whether a NameOwnerChanged was seen (then it, not the first GetNameOwner, is current).
            var changed = false
            /// The uid of the first localauthd, once registered with it; a new owner must have it.
            var uid: UInt32?
        }
        private let state = Mutex(State())

        var owner: String? { state.withLock { $0.owner } }
        var uid: UInt32? { state.withLock { $0.uid } }

        /// The answer to the first GetNameOwner, unless a change has been seen since.
        func start(_ owner: String?) {
            state.withLock { state in
                guard !state.changed else { return }
                state.owner = owner
                state.latest = owner
            }
        }

        func registered(uid: UInt32) {
            state.withLock { $0.uid = uid }
        }

        /// Records a new owner; true when this agent must check it and register with it (until
        /// then it is not believed).
        func change(to owner: String?) -> Bool {
            state.withLock { state in
                state.changed = true
                state.latest = owner
                guard state.uid != nil, owner != nil else {
                    state.owner = owner
                    return false
                }
                state.owner = nil
                return true
            }
        }

        /// Believes `owner` if it still owns the name.
        func believe(_ owner: String) -> Bool {
            state.withLock { state in
                guard state.latest == owner else { return false }
                state.owner = owner
                return true
            }
        }
    }

    /// Serves the agent object and registers it; `deliver` receives the daemon's calls and the
    /// daemon's comings and goings on the connection's queue. Throws the daemon's refusal (Busy
    /// when another agent serves).
    static func register(_ client: DaemonClient, options: [String: DBusValue],
                         deliver: @escaping @Sendable (Call) -> Void) async throws(CLIError) -> AgentEndpoint {
        let daemon = Daemon()
        let locale = Self.locale
        // Watched before the owner is read, so no restart falls between the two.
        _ = try await client.translate {
            try await client.connection.watchNameOwners(LocalAuthBusNames.busName) { change in
                if change.oldOwner != nil { deliver(.daemonStopped) }
                guard daemon.change(to: change.newOwner), let newOwner = change.newOwner else { return }
                Task { await comeBack(to: newOwner, daemon, client, locale: locale, options: options, deliver: deliver) }
            }
        }
        let owner = try await client.translate {
            try await client.connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                             interface: "org.freedesktop.DBus", member: "GetNameOwner",
                                             arguments: [.string(LocalAuthBusNames.busName)]).first?.string ?? ""
        }
        daemon.start(owner)
        let uid = try await client.translate { try await client.connection.credentials(of: owner).uid }
        try await client.translate {
            // The table checks member and signature; the admit stage lets only the daemon call.
            let table = DBusVTable(interface, methods: [
                .init(AgentMethod.beginAuthentication) { _, handle, cookie, request throws(DBusError) in
                    deliver(.begin(handle: handle, cookie: cookie, request: request))
                    return .empty
                },
                .init(AgentMethod.updateAuthentication) { _, handle, cookie, update throws(DBusError) in
                    deliver(.update(handle: handle, cookie: cookie, update: update))
                    return .empty
                },
                .init(AgentMethod.endAuthentication) { _, handle, result throws(DBusError) in
                    deliver(.end(handle: handle, result: result))
                    return .empty
                },
            ])
            try client.connection.register(path: LocalAuthBusNames.agentPath, table: table) { call throws(DBusError) in
                guard let sender = call.sender, sender == daemon.owner else {
                    throw DBusError(.accessDenied, "Only localauthd may call this agent.")
                }
            }
        }
        try await client.manager { try await $0.registerAgent(locale: locale, options: options) }
        daemon.registered(uid: uid)
        return AgentEndpoint(client: client)
    }

    /// A new owner took localauthd's name: believed and registered with if it runs as the same
    /// uid as the localauthd this agent first served (on a bus where anyone may own the name, an
    /// impostor could otherwise draw sheets and take the passcode).
    private static func comeBack(to owner: String, _ daemon: Daemon, _ client: DaemonClient, locale: String,
                                 options: [String: DBusValue], deliver: @escaping @Sendable (Call) -> Void) async {
        do throws(CLIError) {
            let uid = try await client.translate { try await client.connection.credentials(of: owner).uid }
            guard uid == daemon.uid else {
                deliver(.refusedAgain(.accessDenied("localauthd's bus name is now owned by a process of uid \(uid), not uid \(daemon.uid.map(String.init) ?? "?") as before; this agent does not serve it.")))
                return
            }
            guard daemon.believe(owner) else { return }  // gone again; the next owner is checked in turn
            try await client.manager { try await $0.registerAgent(locale: locale, options: options) }
            deliver(.registeredAgain)
        } catch {
            deliver(.refusedAgain(.temporary("localauthd came back and refused this agent: \(error.message)")))
        }
    }

    /// The locale of the terminal's user, as POSIX programs choose it.
    static var locale: String {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty { return value }
        }
        return "C"
    }

    /// `AgentResponse`; nil when taken, otherwise the daemon's refusal.
    func respond(_ cookie: String, _ response: AgentResponse, passcode: [UInt8] = []) async -> CLIError? {
        do throws(CLIError) {
            let argument = DaemonClient.passcodeArgument(passcode)
            try await client.manager { try await $0.agentResponse(cookie: cookie, response: response.rawValue, passcode: argument) }
            return nil
        } catch {
            return error
        }
    }
}
