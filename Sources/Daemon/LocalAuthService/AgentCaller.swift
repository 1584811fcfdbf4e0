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
        try? proxy(agent).send(AgentMethod.beginAuthentication, request.handle, request.cookie, encoded)
    }

    func agentUpdate(_ update: AgentUpdate, agent: ClientID) {
        try? proxy(agent).send(AgentMethod.updateAuthentication, update.handle, update.cookie, [
            LocalAuthAgentUpdateKey.kind.rawValue: .string(update.kind),
            LocalAuthAgentUpdateKey.advice.rawValue: .string(update.advice),
            LocalAuthAgentUpdateKey.sensors.rawValue: .strings(update.sensors.sorted().map(\.rawValue)),
            LocalAuthAgentUpdateKey.message.rawValue: .string(update.message),
        ])
    }

    func agentEnd(handle: String, result: String, agent: ClientID) {
        try? proxy(agent).send(AgentMethod.endAuthentication, handle, result)
    }

    /// The agent's object. An agent that left is dropped by the engine when the bus says so; until
    /// then sends to it fail quietly (`try?`).
    private func proxy(_ agent: ClientID) -> DBusProxy {
        DBusProxy(LocalAuthInterface.agent, on: connection, destination: agent.rawValue, path: LocalAuthBusNames.agentPath)
    }
}
