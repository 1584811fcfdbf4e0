// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthCore
@testable import LocalAuthSystem
import Testing

@Suite("logind session standings", .timeLimit(.minutes(1)))
struct LogindSessionsTests {
    /// True where logind has written no session (a container, a build machine).
    static let noSessions = ((try? FileManager.default.contentsOfDirectory(atPath: "/run/systemd/sessions")) ?? []).isEmpty

    @Test(.enabled(if: noSessions)) func withoutLogindEveryClientIsUnknown() {
        let sessions = LogindSessions()
        #expect(sessions.standing(ofProcess: UInt32(getpid()), user: getuid()) == .unknown)
        #expect(sessions.standing(ofProcess: nil, user: 65534) == .unknown)
    }

    @Test func aSessionLogindCannotDescribeIsUnknown() {
        let sessions = LogindSessions()
        #expect(sessions.standing(ofSession: "nosuchsession4711") == .unknown)
        #expect(sessions.sessionID(ofProcess: 0) == nil)
        #expect(sessions.sessionID(ofProcess: UInt32.max) == nil)
    }

    /// A fixture tree: `proc/PID/cgroup`, `run/sessions/ID`, `run/users/UID`.
    struct Fixture {
        let directory: TemporaryDirectory
        var sessions: LogindSessions { LogindSessions(processes: directory.path + "/proc", logind: directory.path + "/run") }

        init() throws {
            directory = try TemporaryDirectory()
            for sub in ["proc", "run/sessions", "run/users"] {
                try FileManager.default.createDirectory(atPath: directory.path + "/" + sub, withIntermediateDirectories: true)
            }
        }

        func process(_ pid: UInt32, cgroup: String) throws {
            try FileManager.default.createDirectory(atPath: directory.path + "/proc/\(pid)", withIntermediateDirectories: true)
            try writeFile(directory.path + "/proc/\(pid)/cgroup", Array(cgroup.utf8))
        }

        /// A session file as logind 252 writes it (other keys included, to be skipped).
        func session(_ id: String, uid: UInt32 = 1000, seat: String? = "seat0", active: String = "1", remote: String = "0") throws {
            var text = "# This is private data. Do not parse.\nUID=\(uid)\nUSER=alice\nACTIVE=\(active)\nIS_DISPLAY=1\nSTATE=\(active == "1" ? "active" : "online")\nREMOTE=\(remote)\nTYPE=x11\nCLASS=user\n"
            if let seat { text += "SEAT=\(seat)\nVTNR=2\n" }
            text += "DISPLAY=\(id)\nSERVICE=gdm-password\nLEADER=1234\n"
            try writeFile(directory.path + "/run/sessions/\(id)", Array(text.utf8))
        }

        func user(_ uid: UInt32, sessions: String, online: String) throws {
            let text = "# This is private data. Do not parse.\nNAME=alice\nSTATE=active\nSTOPPING=no\nSESSIONS=\(sessions)\nSEATS=seat0\nACTIVE_SESSIONS=\(online)\nONLINE_SESSIONS=\(online)\n"
            try writeFile(directory.path + "/run/users/\(uid)", Array(text.utf8))
        }
    }

    static let unified = "0::/user.slice/user-1000.slice/session-3.scope\n"

    @Test func aProcessInASessionScopeTakesThatSessionsStanding() throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try fixture.process(700, cgroup: Self.unified)
        try fixture.session("3", uid: 1000)
        #expect(fixture.sessions.session(ofProcess: 700) == LoginSession(id: "3", owner: 1000))
        #expect(fixture.sessions.standing(ofProcess: 700, user: 1000) == .foreground)
        try fixture.session("3", active: "0")
        #expect(fixture.sessions.standing(ofProcess: 700, user: 1000) == .background, "inactive on its seat: background")
    }

    @Test func remoteIsBackgroundAndSeatlessIsUnknown() throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try fixture.process(700, cgroup: Self.unified)
        try fixture.session("3", seat: nil, active: "1", remote: "1")
        #expect(fixture.sessions.standing(ofProcess: 700, user: 1000) == .background, "ssh: background even when active")
        try fixture.session("3", seat: nil, active: "1", remote: "0")
        #expect(fixture.sessions.standing(ofProcess: 700, user: 1000) == .unknown, "local without a seat")
        try fixture.session("3", seat: "", active: "1", remote: "0")
        #expect(fixture.sessions.standing(ofProcess: 700, user: 1000) == .unknown, "an empty SEAT is none")
        try fixture.session("3", active: "maybe")
        #expect(fixture.sessions.standing(ofProcess: 700, user: 1000) == .unknown, "ACTIVE neither true nor false")
        try fixture.session("3", active: "yes", remote: "no")
        #expect(fixture.sessions.standing(ofProcess: 700, user: 1000) == .foreground, "systemd's other spellings of booleans")
    }

    @Test func aUserServiceIsInNoSessionAndTakesItsUsersBestSession() throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try fixture.process(800, cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/vte-spawn-1.scope\n")
        #expect(fixture.sessions.session(ofProcess: 800) == nil)
        #expect(fixture.sessions.standing(ofProcess: 800, user: 1000) == .unknown, "no users file: no sessions")

        try fixture.session("4", active: "0")
        try fixture.session("5", seat: nil, remote: "1")
        try fixture.user(1000, sessions: "4 5", online: "4 5 4")
        #expect(fixture.sessions.sessions(of: 1000) == ["4", "5"])
        #expect(fixture.sessions.standing(ofProcess: 800, user: 1000) == .background)

        try fixture.session("6")
        try fixture.user(1000, sessions: "4 5 6", online: "4 5")
        #expect(fixture.sessions.standing(ofProcess: 800, user: 1000) == .background, "a closing session (not online) does not count")
        try fixture.user(1000, sessions: "4 5 6", online: "4 6 5")
        #expect(fixture.sessions.standing(ofProcess: 800, user: 1000) == .foreground)
        #expect(fixture.sessions.standing(ofProcess: nil, user: 1000) == .foreground, "no pid from the bus: the user's best")
        #expect(fixture.sessions.standing(ofProcess: nil, user: 1001) == .unknown)
    }

    @Test func theLegacyAndHybridHierarchiesUseTheNameSystemdLine() throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try fixture.session("c2")
        // v1 only: no 0:: line.
        try fixture.process(900, cgroup: "11:memory:/user.slice\n2:cpu,cpuacct:/user.slice\n1:name=systemd:/user.slice/user-1000.slice/session-c2.scope\n")
        #expect(fixture.sessions.session(ofProcess: 900) == LoginSession(id: "c2", owner: 1000))
        // Hybrid: the name=systemd line wins over the unified hierarchy's.
        try fixture.process(901, cgroup: "12:cpuset:/\n1:name=systemd:/user.slice/user-1000.slice/session-c2.scope\n0::/user.slice/user-1000.slice/session-9.scope\n")
        #expect(fixture.sessions.session(ofProcess: 901)?.id == "c2")
        try fixture.process(902, cgroup: "1:name=systemd:/system.slice/sshd.service\n0::/user.slice/user-1000.slice/session-c2.scope\n")
        #expect(fixture.sessions.session(ofProcess: 902) == nil)
    }

    @Test func onlyTheFirstUnitPastTheSlicesNamesASession() throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        let root = ""
        #expect(LogindSessions.session(inCgroup: "/user.slice/user-1000.slice/session-12.scope", root: root) == "12")
        #expect(LogindSessions.session(inCgroup: "//user.slice//session-12.scope/", root: root) == "12")
        #expect(LogindSessions.session(inCgroup: "/session-12.scope", root: root) == "12")
        #expect(LogindSessions.session(inCgroup: "/user.slice/user-1000.slice/_session-12.scope", root: root) == "12", "cgroup-escaped")
        #expect(LogindSessions.session(inCgroup: "/system.slice/sshd.service/session-12.scope", root: root) == nil)
        #expect(LogindSessions.session(inCgroup: "/user.slice/user-1000.slice/user@1000.service/session-12.scope", root: root) == nil)
        #expect(LogindSessions.session(inCgroup: "/user.slice/user-1000.slice/session-.scope", root: root) == nil)
        #expect(LogindSessions.session(inCgroup: "/user.slice/user-1000.slice/session-a_b.scope", root: root) == nil)
        #expect(LogindSessions.session(inCgroup: "/user.slice/user-1000.slice/session-12.service", root: root) == nil)
        #expect(LogindSessions.session(inCgroup: "/user.slice/user-1000.slice", root: root) == nil)
        #expect(LogindSessions.session(inCgroup: "/", root: root) == nil)
        #expect(LogindSessions.session(inCgroup: "/.slice/session-1.scope", root: root) == nil, "not a slice name: the unit is .slice")
    }

    @Test func inAContainerCgroupsAreReadBelowInitsCgroup() throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        try fixture.process(1, cgroup: "0::/machine.slice/machine-web.scope/init.scope\n")
        try fixture.process(700, cgroup: "0::/machine.slice/machine-web.scope/user.slice/user-1000.slice/session-7.scope\n")
        try fixture.session("7")
        #expect(fixture.sessions.cgroupRoot == "/machine.slice/machine-web.scope")
        #expect(fixture.sessions.session(ofProcess: 700)?.id == "7")
        #expect(LogindSessions.session(inCgroup: "/machine.slice/machine-webx/session-7.scope", root: "/machine.slice/machine-web.scope") == nil)
    }

    @Test func missingOrHostileFilesGiveNoSession() throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        #expect(fixture.sessions.session(ofProcess: 700) == nil, "no /proc/PID/cgroup: the process is gone")
        try fixture.process(700, cgroup: Self.unified)
        #expect(fixture.sessions.session(ofProcess: 700) == nil, "no session file: logind does not know it")
        #expect(fixture.sessions.standing(ofProcess: 700, user: 1000) == .unknown)
        try writeFile(fixture.directory.path + "/run/sessions/3", Array("UID=\nSEAT=seat0\nACTIVE=1\n".utf8))
        #expect(fixture.sessions.session(ofProcess: 700) == nil, "no owner")
        try writeFile(fixture.directory.path + "/run/sessions/3", Array("UID=4294967295\n".utf8))
        #expect(fixture.sessions.session(ofProcess: 700) == nil, "the invalid uid")
        try writeFile(fixture.directory.path + "/run/sessions/3", Array("UID=\"1000\"\nSEAT= seat0 \nACTIVE='1'\n".utf8))
        #expect(fixture.sessions.session(ofProcess: 700) == LoginSession(id: "3", owner: 1000), "quoted values, as parse_env_file reads them")
        #expect(fixture.sessions.standing(ofProcess: 700, user: 1000) == .foreground)

        // A session list naming a file outside the sessions directory reads nothing there: the
        // session counts, as libsystemd counts it, but its standing is unknown.
        try writeFile(fixture.directory.path + "/run/users/1000", Array("ONLINE_SESSIONS=../users/1000.bak\n".utf8))
        try writeFile(fixture.directory.path + "/run/users/1000.bak", Array("ACTIVE=1\nSEAT=seat0\n".utf8))
        #expect(fixture.sessions.standing(ofProcess: nil, user: 1000) == .background)
        #expect(fixture.sessions.sessions(of: UInt32.max).isEmpty)
    }
}

private extension LogindSessions {
    /// As the engine composes them: the process's session (found once per connection), then that session's standing.
    func standing(ofProcess pid: UInt32?, user: UInt32) -> SessionStanding {
        standing(in: session(ofProcess: pid), user: user)
    }
}
