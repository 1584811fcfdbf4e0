// SPDX-License-Identifier: Apache-2.0
/// Whose prompts a registered agent receives.
public enum AgentScope: Sendable, Hashable {
    /// The evaluations of applications in one logind session (its owner's only): the desktop's
    /// or terminal's session agent. One per session.
    case session(String)
    /// The evaluations of this uid's applications that are in no session (`localauth agent --fallback`).
    case fallback
    /// The evaluations of the agent's own connection only, allowed only while no session or
    /// fallback agent serves it (`localauth evaluate` without an agent, as `pkexec` does).
    case ownContexts

    /// What a client asks for in `RegisterAgent`; the session is the engine's to find out.
    public enum Requested: Sendable, Hashable {
        case session
        case fallback
        case ownContexts
    }
}

/// A connection registered as an agent.
public struct AgentRegistration: Sendable, Hashable {
    public let client: ClientID
    public let uid: UInt32
    public let scope: AgentScope
    /// The language its sentences are rendered in.
    public let language: MessageCatalog.Language
}
