// SPDX-License-Identifier: Apache-2.0
/// A logind session as agents are registered for it.
public struct LoginSession: Sendable, Hashable {
    public let id: String
    /// The uid that owns the session; only it may register the session's agent.
    public let owner: UInt32

    public init(id: String, owner: UInt32) {
        self.id = id
        self.owner = owner
    }
}

/// Sessions for agent routing; a directory that cannot tell (no logind) leaves every process
/// sessionless, so only fallback agents serve.
public protocol SessionLookup: Sendable {
    /// The session process `pid` belongs to; nil when it is in none or the transport could not tell.
    func session(ofProcess pid: UInt32?) -> LoginSession?
}
