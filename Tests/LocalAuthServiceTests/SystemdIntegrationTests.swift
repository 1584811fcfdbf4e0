// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// The daemon as systemd and the system bus see it: sd_notify, the unit file, the bus policy, logging.
@Suite("Running as a system service", .timeLimit(.minutes(2)))
struct SystemdIntegrationTests {
    typealias D = DaemonUnderTest
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func notifiesReadyAfterTheNameWatchdogReloadAndStopping() async throws {
        try await withPrivateBus { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let notify = try NotifySocket()
            defer { notify.close() }
            let daemon = try DaemonUnderTest(bus: bus, configuration: "evaluation_timeout = 60\n")
            defer { daemon.kill() }
            try await daemon.start(watcher: watcher, environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000"])

            let ready = try await notify.next(containing: "READY=1")
            let owner = try await watcher.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                               member: "NameHasOwner", arguments: [.string(LocalAuthBusNames.busName)])
            #expect(owner.first == .bool(true), "READY=1 only once the name is on the bus")
            #expect(ready.contains("STATUS=0 contexts, 0 evaluations running"), "\(ready)")
            _ = try await notify.next(containing: "WATCHDOG=1")
            _ = try await notify.next(containing: "WATCHDOG=1")

            try "evaluation_timeout = 5\n".write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
            daemon.send(SIGHUP)
            _ = try await notify.next(containing: "RELOADING=1")
            _ = try await notify.next(containing: "READY=1")
            #expect(daemon.logText.contains("configuration reloaded"))

            try "evaluation_timeout = soon\n".write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
            daemon.send(SIGHUP)
            _ = try await notify.next(containing: "RELOADING=1")
            _ = try await notify.next(containing: "READY=1")
            #expect(daemon.logText.contains("configuration not reloaded, keeping the running one: \(daemon.configPath):1: evaluation_timeout"), "\(daemon.logText)")

            #expect(try await daemon.terminate() == 0)
            _ = try await notify.next(containing: "STOPPING=1")
        }
    }

    @Test func idleExitLeavesWhenNoClientHoldsAContext() async throws {
        try await withPrivateBus { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let daemon = try DaemonUnderTest(bus: bus)
            defer { daemon.kill() }
            let gone = Inbox<Bool>()
            _ = try await watcher.watchNameOwners(LocalAuthBusNames.busName) { if $0.newOwner == nil { gone.put(true) } }
            try await daemon.start(watcher: watcher, arguments: ["--idle-exit", "0.5"])
            #expect(try await gone.next(within: .seconds(15)))
            #expect(try await daemon.terminate() == 0)
        }
    }

    @Test func systemdAnalyzeVerifiesTheUnit() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            print("skipped: systemd-analyze is not installed")
            return
        }
        let unit = try String(contentsOf: Self.repository.appendingPathComponent("systemd/localauthd.service"), encoding: .utf8)
        #expect(unit.contains("Type=notify") && unit.contains("BusName=org.localauth.LocalAuthentication1") && unit.contains("StateDirectoryMode=0700"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("localauthd.service")
        // verify checks that ExecStart exists: point it at the binary under test.
        try unit.replacingOccurrences(of: "/usr/libexec/localauthd", with: D.binary).write(to: copy, atomically: true, encoding: .utf8)
        let verify = try await runTool("/usr/bin/systemd-analyze", ["verify", "--man=no", copy.path], timeout: .seconds(30))
        #expect(verify.status == 0, "\(verify.output)")
        let security = try await runTool("/usr/bin/systemd-analyze", ["security", "--offline=yes", copy.path], timeout: .seconds(30))
        let exposure = security.output.split(separator: "\n").last { $0.contains("Overall exposure level") }.map(String.init) ?? security.output
        #expect(exposure.contains(": 0.") || exposure.contains(": 1."), "fprintd.service scores 5.4; ours must stay far below: \(exposure)")
    }

    static func systemBusConfiguration(socket: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            \(PrivateBus.defaultRules)
          </policy>
          <include>\(repository.appendingPathComponent("dbus/org.localauth.LocalAuthentication1.conf").path)</include>
        </busconfig>
        """
    }

    static let unprivilegedClient = PythonDBusClient.prelude + """
    manager = dbus.Interface(bus.get_object(N, '/org/localauth/LocalAuthentication1'), N + '.Manager')
    attempt('user-state', lambda: manager.GetUserState())
    attempt('create-context', lambda: manager.CreateContext({}))
    attempt('version', lambda: bus.get_object(N, '/org/localauth/LocalAuthentication1').Get(N + '.Manager', 'Version', dbus_interface='org.freedesktop.DBus.Properties'))
    attempt('reset', lambda: manager.ResetLockout(dbus.UInt32(0)))
    simulator = dbus.Interface(bus.get_object(N, '/org/localauth/LocalAuthentication1/simulator'), N + '.Simulator')
    attempt('touch', lambda: simulator.Touch('left-thumb'))
    attempt('own-name', lambda: bus.request_name(N, dbus.bus.NAME_FLAG_DO_NOT_QUEUE))
    attempt('other-interface', lambda: bus.get_object(N, '/org/localauth/LocalAuthentication1').Frob(dbus_interface='org.example.Other'))
    """

    @Test func theSystemBusPolicyLetsEveryoneCallAndOnlyRootOwnTheName() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sysbus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(at: directory) }
        let bus = try PrivateBus(configuration: Self.systemBusConfiguration(socket: directory.appendingPathComponent("system_bus_socket").path))
        defer { bus.stop() }
        let watcher = try await bus.connect()
        defer { watcher.close() }
        let daemon = try DaemonUnderTest(bus: bus)
        defer { daemon.kill() }
        try await daemon.start(watcher: watcher)  // as root: allowed to own the name

        let result = try await runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                             "/usr/bin/python3", "-c", Self.unprivilegedClient, bus.address], timeout: .seconds(30))
        #expect(result.status == 0, "\(result.output)")
        let denied = "org.freedesktop.DBus.Error.AccessDenied"
        for line in ["user-state allowed", "create-context allowed", "version allowed", "reset \(denied)", "touch \(denied)",
                     "own-name \(denied)", "other-interface \(denied)"] {
            #expect(result.output.contains(line), "expected \"\(line)\" in:\n\(result.output)")
        }
    }

    @Test func auditLinesOnStderrCarryOutcomesButNeverThePasscode() async throws {
        let passcode = "journal-secret-77"
        try await withDaemon { daemon, bus in
            let client = try await Client(bus)
            try await client.setUp(passcode: passcode, fingers: ["left-thumb"])
            let context = try await client.createContext()
            let failing = try await client.begin(context, policy: 1)
            for _ in 1...3 { try await client.simulator("Touch", [.string("right-thumb")]) }
            #expect(await failing.value == LocalAuthBusNames.errorPrefix + "AuthenticationFailed")
            let succeeding = try await client.begin(context, policy: 1)
            try await client.simulator("Touch", [.string("left-thumb")])
            #expect(await succeeding.value == nil)
            _ = try await client.context(context, "Invalidate")  // replied after the audit lines were written

            let lines = daemon.logText.split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix("<5>evaluation uid=0 client=") && $0.contains(" pid=") && $0.contains("policy=1 result=AuthenticationFailed") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("<6>evaluation uid=0 client=") && $0.contains("policy=1 result=success") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("<5>passcode-change uid=0") })
            #expect(lines.allSatisfy { $0.hasPrefix("<") }, "every line carries a priority")
            #expect(!daemon.logText.contains(passcode))
        }
    }
}
