// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import Synchronization

/// Session standings a test sets: by process id first, then by user; `unknown` for the rest,
/// as without logind.
public final class FakeSessionDirectory: SessionDirectory, SessionLookup {
    private let sessions = Mutex<[UInt32: LoginSession]>([:])
    private let standings = Mutex<(processes: [UInt32: SessionStanding], users: [UInt32: SessionStanding])>(([:], [:]))

    public init() {}

    public func set(_ standing: SessionStanding, process pid: UInt32) {
        standings.withLock { $0.processes[pid] = standing }
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

    public func standing(ofProcess pid: UInt32?, user: UInt32) -> SessionStanding {
        standings.withLock { standings in
            pid.flatMap { standings.processes[$0] } ?? standings.users[user] ?? .unknown
        }
    }
}
