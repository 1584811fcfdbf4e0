// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import LocalAuthCore

/// Session standings from systemd-logind, read from logind's files the way libsystemd's sd-login
/// reads them (no bus call, so it is quick enough for the engine's actor): a process's session
/// from its cgroup (`/proc/PID/cgroup`), a session's owner, seat and state from
/// `/run/systemd/sessions/ID`, a user's sessions from `/run/systemd/users/UID`. One open, read and
/// close per file.
///
/// Without logind (a container, another init) every lookup fails and every client is `unknown`.
/// A process inside a session takes that session's standing. A process outside every session (a
/// systemd user service, a desktop app launched as its own scope) takes its user's best session:
/// `foreground` when one of them is, `background` when the user has sessions but none is, and
/// `unknown` when it has none.
public struct LogindSessions: SessionDirectory, SessionLookup {
    /// Where the kernel shows processes (`/proc`).
    let processes: String
    /// Where logind keeps its state (`/run/systemd`).
    let logind: String
    /// The cgroup this namespace's init runs in, without its `/init.scope`: empty on a host, the
    /// container's own cgroup in a container that sees the host's hierarchy. Cgroup paths are
    /// read relative to it, as `sd_pid_get_session` reads them.
    let cgroupRoot: String

    /// `processes` and `logind` are the roots of the files read (tests give fixture trees).
    public init(processes: String = "/proc", logind: String = "/run/systemd") {
        self.processes = processes
        self.logind = logind
        let initCgroup = SmallFile.read("\(processes)/1/cgroup").flatMap(Self.systemdCgroup(in:)) ?? ""
        cgroupRoot = ["/init.scope", "/system.slice", "/system"].first(where: initCgroup.hasSuffix)
            .map { String(initCgroup.dropLast($0.count)) } ?? initCgroup
    }

    public func standing(in session: LoginSession?, user: UInt32) -> SessionStanding {
        if let session { return standing(ofSession: session.id) }
        let standings = sessions(of: user).map(standing(ofSession:))
        if standings.contains(.foreground) { return .foreground }
        return standings.isEmpty ? .unknown : .background
    }

    /// Remote, or local in the background: `background`; active on a seat: `foreground`; a local
    /// session without a seat, or one logind cannot describe: `unknown`.
    func standing(ofSession id: String) -> SessionStanding {
        guard let session = sessionFile(id) else { return .unknown }
        if Self.boolean(session["REMOTE"]) == true { return .background }
        guard let seat = session["SEAT"], !seat.isEmpty else { return .unknown }
        switch Self.boolean(session["ACTIVE"]) {
        case true?: return .foreground
        case false?: return .background
        case nil: return .unknown
        }
    }

    /// The session of process `pid` with its owner; nil outside every session or without logind.
    public func session(ofProcess pid: UInt32?) -> LoginSession? {
        guard let pid, let id = sessionID(ofProcess: pid), let owner = sessionFile(id)?["UID"].flatMap(Self.uid) else { return nil }
        return LoginSession(id: id, owner: owner)
    }

    /// The id of the session process `pid` runs in; nil outside every session.
    func sessionID(ofProcess pid: UInt32) -> String? {
        guard pid > 0, let text = SmallFile.read("\(processes)/\(pid)/cgroup"), let cgroup = Self.systemdCgroup(in: text) else { return nil }
        return Self.session(inCgroup: cgroup, root: cgroupRoot)
    }

    /// The user's sessions logind counts as online (`sd_uid_get_sessions(uid, 0, …)`), each once.
    func sessions(of user: UInt32) -> [String] {
        guard user != UInt32.max, let text = SmallFile.read("\(logind)/users/\(user)"),
              let list = EnvironmentFile(text)["ONLINE_SESSIONS"] else { return [] }
        var seen = Set<String>()
        return list.split(separator: " ").map(String.init).filter { seen.insert($0).inserted }
    }

    private func sessionFile(_ id: String) -> EnvironmentFile? {
        guard Self.isSessionID(id[...]), let text = SmallFile.read("\(logind)/sessions/\(id)") else { return nil }
        return EnvironmentFile(text)
    }

    /// The systemd hierarchy's path in a `/proc/PID/cgroup` text: the `name=systemd` line's
    /// (legacy and hybrid hierarchies), else the unified hierarchy's `0::` line's.
    static func systemdCgroup(in text: String) -> String? {
        var unified: Substring?
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            if parts[1].split(separator: ",").contains("name=systemd") { return String(parts[2]) }
            if parts[0] == "0", unified == nil { unified = parts[2] }
        }
        return unified.map(String.init)
    }

    /// The session a cgroup path names, as `cg_path_get_session` finds it: below `root`, past the
    /// leading `*.slice` components, the first unit must be `session-ID.scope`. Anything else
    /// (`user@UID.service`, an app's scope, a system service) is no session.
    static func session(inCgroup cgroup: String, root: String) -> String? {
        var path = Substring(cgroup)
        if root != "", root != "/" {
            if path == root {
                path = "/"
            } else if path.hasPrefix(root + "/") {
                path = path.dropFirst(root.count)
            }
        }
        guard var unit = path.split(separator: "/").first(where: { !isSlice($0) }) else { return nil }
        if unit.first == "_" { unit = unit.dropFirst() }  // cgroup escaping (cg_unescape)
        guard unit.hasPrefix("session-"), unit.hasSuffix(".scope") else { return nil }
        let id = unit.dropFirst("session-".count).dropLast(".scope".count)
        return isSessionID(id) ? String(id) : nil
    }

    /// A slice's unit name (`user.slice`, `user-1000.slice`), possibly cgroup-escaped.
    private static func isSlice(_ component: Substring) -> Bool {
        let name = component.first == "_" ? component.dropFirst() : component
        guard component.count >= "x.slice".count, name.hasSuffix(".slice"), name.count > ".slice".count, name.count <= 255 else { return false }
        return name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "\\"): true
            default: false
            }
        }
    }

    /// logind's session ids: letters and digits only, so one is always a plain file name.
    private static func isSessionID(_ id: Substring) -> Bool {
        !id.isEmpty && id.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: false
            }
        }
    }

    /// systemd's booleans (`parse_boolean`); nil when missing or neither.
    private static func boolean(_ value: String?) -> Bool? {
        switch value?.lowercased() {
        case "1", "yes", "y", "true", "t", "on": true
        case "0", "no", "n", "false", "f", "off": false
        default: nil
        }
    }

    /// A decimal uid other than the invalid −1 and its 16-bit form (`parse_uid`).
    private static func uid(_ text: String) -> UInt32? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let uid = UInt32(text), uid != UInt32.max, uid != 0xFFFF else { return nil }
        return uid
    }
}
