// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CSystemd
import LocalAuthCore

/// Session standings from systemd-logind, through libsystemd's sd-login (which reads logind's
/// files under /run/systemd; no bus call, so it is quick enough for the engine's actor).
///
/// Without logind (a container, another init) every lookup fails and every client is `unknown`.
/// A process inside a session takes that session's standing. A process outside every session (a
/// systemd user service, a desktop app launched as its own scope) takes its user's best session:
/// `foreground` when one of them is, `background` when the user has sessions but none is, and
/// `unknown` when it has none.
public struct LogindSessions: SessionDirectory, SessionLookup {
    public init() {}

    public func standing(ofProcess pid: UInt32?, user: UInt32) -> SessionStanding {
        if let pid, let session = Self.session(ofProcess: pid) {
            return Self.standing(ofSession: session)
        }
        let standings = Self.sessions(of: user).map(Self.standing(ofSession:))
        if standings.contains(.foreground) { return .foreground }
        return standings.isEmpty ? .unknown : .background
    }

    /// Remote, or local in the background: `background`; active on a seat: `foreground`; a local
    /// session without a seat, or one logind cannot describe: `unknown`.
    static func standing(ofSession session: String) -> SessionStanding {
        if sd_session_is_remote(session) > 0 { return .background }
        var seat: UnsafeMutablePointer<CChar>?
        guard sd_session_get_seat(session, &seat) >= 0, let seat else { return .unknown }
        free(seat)
        switch sd_session_is_active(session) {
        case let active where active > 0: return .foreground
        case 0: return .background
        default: return .unknown
        }
    }

    static func session(ofProcess pid: UInt32) -> String? {
        var session: UnsafeMutablePointer<CChar>?
        guard pid > 0, sd_pid_get_session(pid_t(bitPattern: pid), &session) >= 0, let session else { return nil }
        defer { free(session) }
        return String(cString: session)
    }

    /// The session of process `pid` with its owner; nil outside every session or without logind.
    public func session(ofProcess pid: UInt32?) -> LoginSession? {
        guard let pid, let id = Self.session(ofProcess: pid) else { return nil }
        var owner = uid_t()
        guard sd_session_get_uid(id, &owner) >= 0 else { return nil }
        return LoginSession(id: id, owner: UInt32(owner))
    }

    static func sessions(of user: UInt32) -> [String] {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = sd_uid_get_sessions(uid_t(user), 0, &list)
        guard let list else { return [] }
        defer { free(list) }
        var names: [String] = []
        for index in 0..<Int(max(count, 0)) {
            guard let name = list[index] else { break }
            names.append(String(cString: name))
            free(name)
        }
        return names
    }
}
