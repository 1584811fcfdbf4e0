// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies
import Synchronization

/// Makes a Swift program an authentication agent: it draws localauthd's sheet (reason, sensors,
/// fallback and cancel buttons, passcode entry, the face consent question) for the applications
/// of its session, and answers with what the user chose. The applications never see the
/// passcode, and an `LAContext` needs no `passcodeProvider` while an agent runs.
///
/// ```swift
/// let agent = try await LAAuthenticationAgent.register()
/// for await event in agent.events {
///     if case .began(let request) = event, request.passcodeAllowed {
///         try await agent.answer(.passcode(readPasscode()), for: request.handle)
///     }
/// }
/// ```
///
/// Owns a bus connection of its own; its sheets' cookies are kept behind a mutex.
public final class LAAuthenticationAgent: Sendable {
    /// Whose evaluations the agent shows.
    public enum Scope: Sendable {
        /// The applications of the logind session this process is in (the default).
        case session
        /// This user's applications that are in no session (services, containers).
        case fallback
    }

    /// An evaluation to show (`BeginAuthentication`).
    public struct Request: Sendable {
        public let handle: String
        /// The application as the daemon identified it (flatpak:ID, snap:NAME or its executable).
        public let app: String
        public let policy: LAPolicy
        public let localizedReason: String
        /// Empty: show no fallback button.
        public let localizedFallbackTitle: String
        public let localizedCancelTitle: String
        /// `fingerprint`, `face`.
        public let biometry: [String]
        public let passcodeAllowed: Bool
        /// The daemon's title, in the agent's locale.
        public let title: String
        /// Set when the user must first allow the application Face ID: answer `.allowFace` (a fallback agent: `.allowFaceWithPasscode`) or `.denyFace`.
        public let faceUsageDescription: String?
        public let faceConsentQuestion: String?
    }

    public enum Event: Sendable {
        case began(Request)
        /// `kind`: biometry, waiting, retry, attention-required, no-match, passcode, passcode-wrong or ready.
        case updated(handle: String, kind: String, advice: String, message: String)
        /// `result`: success or the LAError's name.
        case ended(handle: String, result: String)
    }

    public enum Answer: Sendable {
        case passcode(String)
        case fallback
        case cancel
        /// Allows without the passcode: only a session agent that is not the app itself may.
        case allowFace
        /// Allows with the user's passcode, as a fallback agent must (any process of the uid can be one).
        case allowFaceWithPasscode(String)
        case denyFace
    }

    private let connection: DBusConnection
    private let cookies = Mutex<[String: String]>([:])
    public let events: AsyncStream<Event>

    private init(connection: DBusConnection, events: AsyncStream<Event>) {
        self.connection = connection
        self.events = events
    }

    /// Connects (to the bus `LOCALAUTH_BUS_ADDRESS` / `LOCALAUTH_BUS` names, like `LAContext`),
    /// or at `busAddress`), serves the agent object and registers it with localauthd in `locale`
    /// (default: `LANG`).
    public static func register(scope: Scope = .session, locale: String? = nil, busAddress: String? = nil) async throws -> LAAuthenticationAgent {
        let bus = try busAddress.map { DBusBus.address($0) } ?? DaemonBus.fromEnvironment().get()
        let connection = try await DBusConnection.connect(to: bus)
        let owner = try await connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                              interface: "org.freedesktop.DBus", member: "GetNameOwner",
                                              arguments: [.string(LocalAuthBusNames.busName)]).first?.string
        let (events, continuation) = AsyncStream<Event>.makeStream()
        let agent = LAAuthenticationAgent(connection: connection, events: events)
        // The table checks member and signature; the admit stage lets only the daemon call.
        let table = DBusVTable(LocalAuthInterface.agent, methods: [
            .init(AgentMethod.beginAuthentication) { [weak agent] _, handle, cookie, fields throws(DBusError) in
                let field = { (key: LocalAuthAgentRequestKey) in fields[key.rawValue] }
                agent?.cookies.withLock { $0[handle] = cookie }
                continuation.yield(.began(Request(
                    handle: handle, app: field(.app)?.string ?? "", policy: LAPolicy(rawValue: Int(field(.policy)?.uint32 ?? 2)) ?? .deviceOwnerAuthentication,
                    localizedReason: field(.reason)?.string ?? "", localizedFallbackTitle: field(.fallbackTitle)?.string ?? "",
                    localizedCancelTitle: field(.cancelTitle)?.string ?? "", biometry: field(.biometry)?.strings ?? [],
                    passcodeAllowed: field(.passcodeAllowed)?.bool ?? false, title: field(.title)?.string ?? "",
                    faceUsageDescription: field(.faceUsageDescription)?.string, faceConsentQuestion: field(.faceConsentQuestion)?.string)))
                return .empty
            },
            .init(AgentMethod.updateAuthentication) { [weak agent] _, handle, cookie, fields throws(DBusError) in
                let field = { (key: LocalAuthAgentUpdateKey) in fields[key.rawValue] }
                agent?.cookies.withLock { $0[handle] = cookie }
                continuation.yield(.updated(handle: handle, kind: field(.kind)?.string ?? "", advice: field(.advice)?.string ?? "",
                                            message: field(.message)?.string ?? ""))
                return .empty
            },
            .init(AgentMethod.endAuthentication) { [weak agent] _, handle, result throws(DBusError) in
                agent?.cookies.withLock { $0[handle] = nil }
                continuation.yield(.ended(handle: handle, result: result))
                return .empty
            },
        ])
        try connection.register(path: LocalAuthBusNames.agentPath, table: table) { [weak agent] call throws(DBusError) in
            guard call.sender == owner, agent != nil else { throw DBusError(.accessDenied, "Only localauthd may call this agent.") }
        }
        let options: [String: DBusValue] = scope == .fallback ? [LocalAuthAgentOption.fallback.rawValue: .bool(true)] : [:]
        let chosen = locale ?? ProcessInfo.processInfo.environment["LANG"] ?? "C"
        try await ManagerProxy(agent.connection).registerAgent(locale: chosen, options: options)
        connection.onDisconnect { continuation.finish() }
        return agent
    }

    /// Answers the sheet `handle` with its current cookie. Throws the daemon's refusal, e.g.
    /// `LAError.authenticationFailed` for a wrong passcode (the sheet goes on).
    public func answer(_ answer: Answer, for handle: String) async throws {
        guard let cookie = cookies.withLock({ $0[handle] }) else {
            throw LAError(.systemCancel, message: "No authentication \(handle) is open.")
        }
        let response: AgentResponse, passcode: DBusValue
        switch answer {
        case .passcode(let text): (response, passcode) = (.passcode, .secret(DBusSecret(copying: Array(text.utf8))))
        case .fallback: (response, passcode) = (.fallback, .string(""))
        case .cancel: (response, passcode) = (.cancel, .string(""))
        case .allowFace: (response, passcode) = (.allowFace, .string(""))
        case .allowFaceWithPasscode(let text): (response, passcode) = (.allowFace, .secret(DBusSecret(copying: Array(text.utf8))))
        case .denyFace: (response, passcode) = (.denyFace, .string(""))
        }
        do {
            try await ManagerProxy(connection).agentResponse(cookie: cookie, response: response.rawValue, passcode: passcode)
        } catch let error as DBusError {
            throw LAError(reply: error, policy: .deviceOwnerAuthentication)
        }
    }

    /// Stops being an agent and closes the connection.
    public func unregister() {
        connection.close()
    }

}
