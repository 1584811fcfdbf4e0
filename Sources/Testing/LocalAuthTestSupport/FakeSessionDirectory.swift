// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import Synchronization

/// Sessions and standings a test sets: a process's session, a session's standing, else its
/// user's; `unknown` for the rest, as without logind.
public final class FakeSessionDirectory: SessionDirectory, SessionLookup {
    private let sessions = Mutex<[UInt32: LoginSession]>([:])
    private let standings = Mutex<(sessions: [String: SessionStanding], users: [UInt32: SessionStanding])>(([:], [:]))

    private let queries = Mutex(0)

    public init() {}

    /// How many times the engine asked for a standing.
    public var standingQueries: Int { queries.withLock { $0 } }

    public func set(_ standing: SessionStanding, session id: String) {
        standings.withLock { $0.sessions[id] = standing }
    }

    public func set(_ standing: SessionStanding, user uid: UInt32) {
        standings.withLock { $0.users[uid] = standing }
    }

    /// Puts process `pid` into `session` for agent routing.
    public func set(_ session: LoginSession, process pid: UInt32) {
        sessions.withLock { $0[pid] = session }
    }

    public func session(ofProcess pid: UInt32?) -> LoginSession? {
        sessions.withLock { sessions in pid.flatMap { sessions[$0] } }
    }

    public func standing(in session: LoginSession?, user: UInt32) -> SessionStanding {
        queries.withLock { $0 += 1 }
        return standings.withLock { standings in
            session.flatMap { standings.sessions[$0.id] } ?? standings.users[user] ?? .unknown
        }
    }
}
