// SPDX-License-Identifier: Apache-2.0
/// Tells the engine the ``SessionStanding`` of a client when one of its evaluations claims a
/// sensor. The real one asks logind; asked on the engine's actor, so it must answer quickly and
/// never block (reading logind's files in /run is fine, a bus round trip is not).
public protocol SessionDirectory: Sendable {
    /// The standing of process `pid` (nil when the transport could not tell) evaluating for `user`.
    func standing(ofProcess pid: UInt32?, user: UInt32) -> SessionStanding
}

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
