// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// localauthd as installed (issue 27, "The real deployment is part of the test"): the built daemon
/// under `systemd/localauthd.service`'s confinement (``ConfinedDaemon``), on a bus that loads the
/// installed policy files, with the package's configuration. What reads the environment — app
/// identity, the boot id, logind sessions — is tested here.
@Suite(.enabled(if: ConfinedDaemon.unsupportedReason == nil, "\(ConfinedDaemon.unsupportedReason ?? "")"),
       .timeLimit(.minutes(3)))
struct LocalAuthInstalledTests {
    static let passcode = "4711-secret"
    /// The package's configuration with the passcode typed into the app (no agent needed) and
    /// only the backends every machine has.
    static let configuration = ["backends": "passcode", "app_passcode_entry": "true"]

    /// Starts a confined daemon and a watcher connection on its bus.
    static func start(_ configuration: [String: String] = configuration) async throws -> (ConfinedDaemon, DBusConnection) {
        let daemon = try ConfinedDaemon(configuration: configuration)
        let watcher = try await daemon.bus.connect()
        do {
            try await daemon.start(watcher: watcher)
        } catch {
            watcher.close()
            throw error
        }
        return (daemon, watcher)
    }

    /// R1: another user's unconfined app (python3 as uid 65534, through setpriv) may do what only an
    /// identified, unsandboxed app may (revoke a face decision), and the decision is kept under the
    /// app it names. Unidentified, it is refused ("could not tell which app is calling").
    @Test func anUnconfinedAppOfAnotherUserIsIdentifiedUnderTheUnit() async throws {
        let (daemon, watcher) = try await Self.start()
        defer { watcher.close() }
        let output = try await Self.revokeAsAnotherUser(daemon)
        #expect(output == ["SetFaceConsent allowed", "consents [('/usr/bin/true', False)]"], "\(output)\n\(daemon.logText)")
        #expect(!daemon.logText.contains("could not be identified"), "\(daemon.logText)")
    }

    /// As uid 65534: revokes Face ID for `/usr/bin/true` and lists its decisions; the lines printed.
    static func revokeAsAnotherUser(_ daemon: ConfinedDaemon) async throws -> [String] {
        let script = PythonDBusClient.prelude + #"""
        m = dbus.Interface(bus.get_object(N, M, introspect=False), 'org.localauth.LocalAuthentication1.Manager')
        attempt('SetFaceConsent', lambda: m.SetFaceConsent('/usr/bin/true', False, ''))
        print('consents', sorted((str(app), bool(allowed)) for app, allowed in m.GetFaceConsents()))
        """#
        let run = try await runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script,
                                                         daemon.bus.address], timeout: .seconds(60))
        return run.output.split(separator: "\n").map(String.init)
    }

    /// The shipped unit with `change` applied to each of its lines.
    static func shippedUnit(changing change: (String) -> String?) throws -> SandboxEmulation {
        let unit = try String(contentsOf: SystemPolicy.repositoryRoot.appendingPathComponent("systemd/localauthd.service"), encoding: .utf8)
        return try SandboxEmulation(unit: unit.split(separator: "\n", omittingEmptySubsequences: false).compactMap { change(String($0)) }
            .joined(separator: "\n"))
    }

    /// The emulation reproduces R1 and R7 under the unit as it was (no capability, no boot id
    /// handed over), so the two tests above can fail: another user's app is unidentified (refused,
    /// and the log says why), and the daemon, unable to read the boot id, does not start.
    @Test func theEmulationShowsWhatTheUnitWithoutCapabilityAndBootIDDid() async throws {
        let withoutCapability = try Self.shippedUnit { line in
            line.hasPrefix("CapabilityBoundingSet=") ? "CapabilityBoundingSet=" : line.hasPrefix("AmbientCapabilities=") ? "AmbientCapabilities=" : line
        }
        let daemon = try ConfinedDaemon(configuration: Self.configuration, emulation: withoutCapability)
        let watcher = try await daemon.bus.connect()
        defer { watcher.close() }
        try await daemon.start(watcher: watcher)
        let output = try await Self.revokeAsAnotherUser(daemon)
        #expect(output.first?.hasPrefix("SetFaceConsent ") == true && output.first != "SetFaceConsent allowed", "\(output)")
        #expect(daemon.logText.contains("could not be identified"), "\(daemon.logText)")

        let withoutBootID = try Self.shippedUnit { $0.hasPrefix("Environment=LOCALAUTHD_BOOT_ID=") ? nil : $0 }
        let unbooted = try ConfinedDaemon(configuration: Self.configuration, emulation: withoutBootID)
        let unbootedWatcher = try await unbooted.bus.connect()
        defer { unbootedWatcher.close() }
        do {
            try await unbooted.start(watcher: unbootedWatcher)
            Issue.record("started without a boot id:\n\(unbooted.logText)")
        } catch let error as ConfinedDaemon.StartError {
            #expect(error.message.contains("LOCALAUTHD_BOOT_ID"), "\(error)")
        }
    }

    /// Fails the passcode until a delay runs (the package's `passcode_delays` start one at the 5th
    /// wrong passcode); returns when it retries, as `PasscodeRetryAfter` (Unix seconds).
    static func startADelay(_ client: Client) async throws -> UInt64 {
        for _ in 0..<10 {
            let context = try await client.createContext()
            let evaluation = try await client.begin(context, policy: 2)
            _ = await errorName { _ = try await client.context(context, "SubmitPasscode", [.string("wrong-wrong")]) }
            if let retryAfter = try await client.userState()["PasscodeRetryAfter"]?.uint64, retryAfter > 0 {
                evaluation.cancel()
                return retryAfter
            }
            _ = await errorName { _ = try await client.context(context, "Invalidate") }
            _ = await evaluation.value
        }
        throw Inbox<Int>.TimedOut(what: "a passcode delay after 10 wrong passcodes")
    }

    /// R7: the unit hides `/proc/sys` (ProcSubset=pid); the boot id reaches the daemon through
    /// `LOCALAUTHD_BOOT_ID=%b` and the ledger keeps the kernel's, not a made-up one.
    @Test func theBootIDTheDaemonStoresIsTheKernels() async throws {
        let (daemon, watcher) = try await Self.start()
        defer { watcher.close() }
        let client = try await Client(daemon.bus)
        try await client.setUp(passcode: Self.passcode)
        _ = try await Self.startADelay(client)
        let bootID = ConfinedDaemon.bootID
        #expect(bootID.count == 36)
        let stored = try Self.stateText(daemon.stateDirectory)
        #expect(stored.contains(bootID), "the ledger names boot \(bootID):\n\(stored)\n\(daemon.logText)")
        #expect(!stored.contains("unknown"), "\(stored)")
    }

    /// R7: a running passcode delay goes on where it was after the daemon restarts (as idle exit
    /// and activation restart it); a made-up boot id would start it again at full length.
    @Test func aPasscodeDelayDoesNotRestartWhenTheDaemonRestarts() async throws {
        let (daemon, watcher) = try await Self.start()
        defer { watcher.close() }
        let client = try await Client(daemon.bus)
        try await client.setUp(passcode: Self.passcode)
        let retryAfter = try await Self.startADelay(client)
        client.connection.close()
        daemon.kill()
        // Time is what is tested: a delay started again would end at least this much later.
        try await Task.sleep(for: .seconds(3))
        try await daemon.start(watcher: watcher)
        let again = try await Client(daemon.bus)
        defer { again.connection.close() }
        let afterRestart = try #require(try await again.userState()["PasscodeRetryAfter"]?.uint64)
        #expect(afterRestart >= retryAfter - 1 && afterRestart <= retryAfter + 1,
                "retry after \(retryAfter) before the restart, \(afterRestart) after\n\(daemon.logText)")
    }

    /// An agent of a logind session registers for it under the unit (the daemon reads the
    /// session from the agent's `/proc/PID/cgroup` and logind's files in `/run/systemd`).
    @Test(.enabled(if: Self.logindSession != nil, "this test process runs in no logind session (no logind here, or not started from a session)"))
    func anAgentInALogindSessionRegistersForIt() async throws {
        let (daemon, watcher) = try await Self.start()
        defer { watcher.close() }
        let agent = try await TestAgent(daemon.bus)
        defer { agent.close() }
        try await agent.register(options: [:])
        #expect(!daemon.logText.contains("could not be identified"), "\(daemon.logText)")
    }

    /// The logind session this process runs in (from its cgroup and `/run/systemd/sessions`), nil if none.
    static var logindSession: String? {
        guard let cgroup = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
              let scope = cgroup.split(separator: "/").first(where: { $0.hasPrefix("session-") && $0.contains(".scope") })
        else { return nil }
        let id = String(scope.dropFirst("session-".count).prefix { $0 != "." })
        return FileManager.default.fileExists(atPath: "/run/systemd/sessions/\(id)") ? id : nil
    }

    /// Every file under `directory`, concatenated.
    static func stateText(_ directory: String) throws -> String {
        let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        return files.compactMap { try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8) }.joined(separator: "\n")
    }
}
