// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus

/// An authentication agent for tests: its own bus connection serving `…Agent`, recording every
/// call the daemon makes in order; answers go through `respond`.
public final class TestAgent: Sendable {
    /// One call of the daemon on the agent.
    public enum Event: Sendable, Equatable {
        case begin(handle: String, cookie: String, request: [String: DBusValue])
        case update(handle: String, cookie: String, update: [String: DBusValue])
        case end(handle: String, result: String)

        public var cookie: String? {
            switch self {
            case .begin(_, let cookie, _), .update(_, let cookie, _): cookie
            case .end: nil
            }
        }

        /// `Kind` of an update, `begin` or `end`.
        public var kind: String {
            switch self {
            case .begin: "begin"
            case .update(_, _, let update): update[LocalAuthAgentUpdateKey.kind.rawValue]?.string ?? ""
            case .end: "end"
            }
        }
    }

    public let connection: DBusConnection
    public let events = Inbox<Event>()

    /// A call of another kind than a test expected.
    public struct Unexpected: Error {
        public init() {}
    }

    public init(_ bus: PrivateBus) async throws {
        connection = try await bus.connect()
        let events = self.events
        try connection.register(path: LocalAuthBusNames.agentPath) { call in
            let arguments = call.arguments
            switch call.member {
            case "BeginAuthentication":
                events.put(.begin(handle: arguments[0].string ?? "", cookie: arguments[1].string ?? "", request: arguments[2].vardict ?? [:]))
            case "UpdateAuthentication":
                events.put(.update(handle: arguments[0].string ?? "", cookie: arguments[1].string ?? "", update: arguments[2].vardict ?? [:]))
            case "EndAuthentication":
                events.put(.end(handle: arguments[0].string ?? "", result: arguments[1].string ?? ""))
            default:
                throw DBusError(.unknownMethod, "no \(call.member)")
            }
            return .empty
        }
    }

    /// `RegisterAgent`; by default as a fallback agent (tests run outside logind sessions).
    public func register(locale: String = "en_US.UTF-8", options: [String: DBusValue] = [LocalAuthAgentOption.fallback.rawValue: .bool(true)]) async throws {
        _ = try await manager("RegisterAgent", [.string(locale), .vardict(options)])
    }

    /// `AgentResponse` from this agent's connection.
    public func respond(_ cookie: String, _ response: String, passcode: String = "") async throws {
        _ = try await manager("AgentResponse", [.string(cookie), .string(response), .string(passcode)])
    }

    public func manager(_ member: String, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        try await connection.call(destination: LocalAuthBusNames.busName, path: LocalAuthBusNames.managerPath,
                                  interface: LocalAuthBusNames.managerInterface, member: member, arguments: arguments)
    }

    /// The next call of kind `kind` (`begin`, `end` or an update's `Kind`), skipping others.
    public func next(_ kind: String, within timeout: Duration = .seconds(15)) async throws -> Event {
        while true {
            let event = try await events.next(within: timeout)
            if event.kind == kind { return event }
        }
    }

    public func close() { connection.close() }
}
