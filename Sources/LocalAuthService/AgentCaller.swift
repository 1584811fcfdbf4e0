// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthDBus

/// Turns the engine's agent announcements into calls of `…Agent` on the agent's connection, at
/// `LocalAuthBusNames.agentPath` (dbus/org.localauth.LocalAuthentication1.Agent.xml). Sent without expecting a reply, in the engine's order: an agent that
/// does not answer can delay nobody. Stateless; called on the engine's actor.
struct AgentCaller: AgentObserver {
    let connection: DBusConnection

    func agentBegin(_ request: AgentRequest, agent: ClientID) {
        var fields: [LocalAuthAgentRequestKey: DBusValue] = [
            .app: .string(request.app),
            .user: .uint32(request.user),
            .policy: .uint32(UInt32(request.policy.rawValue)),
            .reason: .string(request.reason),
            .fallbackTitle: .string(request.fallbackTitle),
            .cancelTitle: .string(request.cancelTitle),
            .biometry: .strings(request.biometry.sorted().map(\.rawValue)),
            .passcodeAllowed: .bool(request.passcodeAllowed),
            .title: .string(request.title),
        ]
        if let description = request.faceUsageDescription, let question = request.faceConsentQuestion {
            fields[.faceUsageDescription] = .string(description)
            fields[.faceConsentQuestion] = .string(question)
        }
        let encoded = Dictionary(uniqueKeysWithValues: fields.map { ($0.key.rawValue, $0.value) })
        send("BeginAuthentication", [.string(request.handle), .string(request.cookie), .vardict(encoded)], to: agent)
    }

    func agentUpdate(_ update: AgentUpdate, agent: ClientID) {
        send("UpdateAuthentication", [.string(update.handle), .string(update.cookie), .vardict([
            LocalAuthAgentUpdateKey.kind.rawValue: .string(update.kind),
            LocalAuthAgentUpdateKey.advice.rawValue: .string(update.advice),
            LocalAuthAgentUpdateKey.sensors.rawValue: .strings(update.sensors.sorted().map(\.rawValue)),
            LocalAuthAgentUpdateKey.message.rawValue: .string(update.message),
        ])], to: agent)
    }

    func agentEnd(handle: String, result: String, agent: ClientID) {
        send("EndAuthentication", [.string(handle), .string(result)], to: agent)
    }

    private func send(_ member: String, _ arguments: [DBusValue], to agent: ClientID) {
        // An agent that left is dropped by the engine when the bus says so; until then sends fail quietly.
        try? DBusProxy(LocalAuthInterface.agent, on: connection, destination: agent.rawValue, path: LocalAuthBusNames.agentPath)
            .send(member, arguments)
    }
}
