// SPDX-License-Identifier: Apache-2.0
/// Receives what the engine wants agents to see. Called on the engine's actor: implementations
/// hand the work to their own queue, in order, and return at once.
public protocol AgentObserver: Sendable {
    /// `BeginAuthentication` to `agent`.
    func agentBegin(_ request: AgentRequest, agent: ClientID)
    /// `UpdateAuthentication` to `agent`.
    func agentUpdate(_ update: AgentUpdate, agent: ClientID)
    /// `EndAuthentication` to `agent`: `result` is `success` or the LAError's name.
    func agentEnd(handle: String, result: String, agent: ClientID)
}
