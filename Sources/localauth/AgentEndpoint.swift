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
        /// A new localauthd took the name and refused this agent (another one registered first).
        case refusedAgain(CLIError)
    }

    let client: DaemonClient

    /// `…Agent` as this agent serves it (dbus/org.localauth.LocalAuthentication1.Agent.xml;
    /// ContractTests compares them).
    static let interface = LocalAuthInterface.agent

    /// The unique name of the localauthd this agent believes; nil while the name has no owner.
    private final class Daemon: Sendable {
        private struct State {
            var owner: String?
            /// Whether a NameOwnerChanged was seen (then it, not the first GetNameOwner, is current).
            var changed = false
            /// Whether the first registration is done; a new owner before it needs no second one.
            var registered = false
        }
        private let state = Mutex(State())

        var owner: String? { state.withLock { $0.owner } }

        /// The answer to the first GetNameOwner, unless a change has been seen since.
        func start(_ owner: String?) {
            state.withLock { if !$0.changed { $0.owner = owner } }
        }

        func registered() {
            state.withLock { $0.registered = true }
        }

        /// Records a new owner; true when this agent must register with it.
        func change(to owner: String?) -> Bool {
            state.withLock { state in
                state.changed = true
                defer { state.owner = owner }
                return state.registered && owner != nil && owner != state.owner
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
                guard daemon.change(to: change.newOwner) else {
                    if change.newOwner == nil { deliver(.daemonStopped) }
                    return
                }
                if change.oldOwner != nil { deliver(.daemonStopped) }
                Task {
                    do throws(CLIError) {
                        _ = try await client.manager("RegisterAgent", [.string(locale), .vardict(options)])
                        deliver(.registeredAgain)
                    } catch {
                        deliver(.refusedAgain(error))
                    }
                }
            }
        }
        let owner = try await client.translate {
            try await client.connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                             interface: "org.freedesktop.DBus", member: "GetNameOwner",
                                             arguments: [.string(LocalAuthBusNames.busName)]).first?.string ?? ""
        }
        daemon.start(owner)
        try await client.translate {
            try client.connection.register(path: LocalAuthBusNames.agentPath,
                                           introspectionXML: DBusInterfaceDescription.document([interface])) { call in
                guard let sender = call.sender, sender == daemon.owner else {
                    throw DBusError(.accessDenied, "Only localauthd may call this agent.")
                }
                guard call.interface == nil || call.interface == interface.name, let method = interface.method(call.member) else {
                    throw DBusError(.unknownMethod, "No method \(call.member) on \(interface.name).")
                }
                try call.requireSignature(method.inputSignature)
                var reader = call.reader
                switch method.name {
                case "BeginAuthentication":
                    deliver(.begin(handle: try reader.string(), cookie: try reader.string(), request: try reader.vardict()))
                case "UpdateAuthentication":
                    deliver(.update(handle: try reader.string(), cookie: try reader.string(), update: try reader.vardict()))
                default:
                    deliver(.end(handle: try reader.string(), result: try reader.string()))
                }
                return .empty
            }
        }
        _ = try await client.manager("RegisterAgent", [.string(locale), .vardict(options)])
        daemon.registered()
        return AgentEndpoint(client: client)
    }

    /// The locale of the terminal's user, as POSIX programs choose it.
    static var locale: String {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty { return value }
        }
        return "C"
    }

    /// `AgentResponse`; nil when taken, otherwise the daemon's refusal.
    func respond(_ cookie: String, _ response: String, passcode: [UInt8] = []) async -> CLIError? {
        do throws(CLIError) {
            _ = try await client.manager("AgentResponse", [.string(cookie), .string(response), DaemonClient.passcodeArgument(passcode)])
            return nil
        } catch {
            return error
        }
    }
}
