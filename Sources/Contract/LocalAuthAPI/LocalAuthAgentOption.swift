// SPDX-License-Identifier: Apache-2.0
/// The options of `Manager.RegisterAgent` (`a{sv}`, each a `b`); they exclude each other.
public enum LocalAuthAgentOption: String, CaseIterable, Sendable {
    /// Serve the session's evaluations only while no other agent does.
    case fallback = "Fallback"
    /// Serve only the evaluations of the registering connection's own contexts.
    case ownContexts = "OwnContexts"
}
