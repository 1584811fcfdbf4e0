// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import LocalAuthAPI
import LocalAuthDBus

/// The agent side of one connection: serves `…Agent` at the agent path, believes only calls from
/// the owner of localauthd's bus name, and hands each call on as a `Call`, in order.
struct AgentEndpoint: Sendable {
    enum Call: Sendable {
        case begin(handle: String, cookie: String, request: [String: DBusValue])
        case update(handle: String, cookie: String, update: [String: DBusValue])
        case end(handle: String, result: String)
    }

    let client: DaemonClient

    /// `…Agent` as this agent serves it (dbus/org.localauth.LocalAuthentication1.Agent.xml;
    /// ContractTests compares them).
    static let interface = LocalAuthInterface.agent

    /// Serves the agent object and registers it; `deliver` receives the daemon's calls on the
    /// connection's queue. Throws the daemon's refusal (Busy when another agent serves).
    static func register(_ client: DaemonClient, options: [String: DBusValue],
                         deliver: @escaping @Sendable (Call) -> Void) async throws(CLIError) -> AgentEndpoint {
        let owner = try await client.translate {
            try await client.connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                             interface: "org.freedesktop.DBus", member: "GetNameOwner",
                                             arguments: [.string(LocalAuthBusNames.busName)]).first?.string ?? ""
        }
        try await client.translate {
            try client.connection.register(path: LocalAuthBusNames.agentPath,
                                           introspectionXML: DBusInterfaceDescription.document([interface])) { call in
                guard call.sender == owner else {
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
