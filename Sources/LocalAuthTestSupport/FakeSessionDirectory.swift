// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import Synchronization

/// Session standings a test sets: by process id first, then by user; `unknown` for the rest,
/// as without logind.
public final class FakeSessionDirectory: SessionDirectory {
    private let standings = Mutex<(processes: [UInt32: SessionStanding], users: [UInt32: SessionStanding])>(([:], [:]))

    public init() {}

    public func set(_ standing: SessionStanding, process pid: UInt32) {
        standings.withLock { $0.processes[pid] = standing }
    }

    public func set(_ standing: SessionStanding, user uid: UInt32) {
        standings.withLock { $0.users[uid] = standing }
    }

    public func standing(ofProcess pid: UInt32?, user: UInt32) -> SessionStanding {
        standings.withLock { standings in
            pid.flatMap { standings.processes[$0] } ?? standings.users[user] ?? .unknown
        }
    }
}
