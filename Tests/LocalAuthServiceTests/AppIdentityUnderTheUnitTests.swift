// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// App identity as the shipped unit leaves it to the daemon (issue 27, R1 and R6): root with no
/// capability but CAP_SYS_PTRACE. Without it another user's app cannot be identified; such an app,
/// and a sandboxed one, may not register as an agent nor call a method that takes the passcode,
/// and is refused before any passcode is checked, so it cannot burn the user's tries.
@Suite("App identity under the unit", .timeLimit(.minutes(3)))
struct AppIdentityUnderTheUnitTests {
    static let denied = "org.freedesktop.DBus.Error.AccessDenied"

    /// The capabilities of the unit, or none at all (the unit before this fix).
    static func launcher(keepingPtrace: Bool) -> [String] {
        let capabilities = keepingPtrace ? "-all,+sys_ptrace" : "-all"
        return ["/usr/bin/setpriv", "--bounding-set=\(capabilities)", "--inh-caps=\(capabilities)",
                "--ambient-caps=\(keepingPtrace ? "+sys_ptrace" : "-all")", "--"]
    }

    static let otherUsersApp = PythonDBusClient.prelude + """
    manager = dbus.Interface(bus.get_object(N, M), N + '.Manager')
    attempt('create-context', lambda: manager.CreateContext({}))
    attempt('set-require-attention', lambda: manager.SetRequireAttention(True, 'not-the-passcode'))
    attempt('register-agent', lambda: manager.RegisterAgent('C', {'Fallback': True}))
    """

    func runAsNobody(_ script: String, _ bus: PrivateBus) async throws -> String {
        let result = try await runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                             "/usr/bin/python3", "-c", script, bus.address], timeout: .seconds(60))
        #expect(result.status == 0, "\(result.output)")
        return result.output
    }

    /// Without CAP_SYS_PTRACE another user's /proc/PID/exe cannot be read: that app is not lumped
    /// with others as "unidentified", it is refused agents and passcode methods, and the log says why.
    @Test func anAppTheServiceCannotIdentifyIsRefusedAgentsAndPasscodeMethodsAndTheLogSaysWhy() async throws {
        try await withPrivateBus(allowingEveryUser: true) { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let daemon = try DaemonUnderTest(bus: bus)
            defer { daemon.kill() }
            try await daemon.start(watcher: watcher, launcher: Self.launcher(keepingPtrace: false))
            let output = try await runAsNobody(Self.otherUsersApp, bus)
            for line in ["create-context allowed", "set-require-attention \(Self.denied)", "register-agent \(Self.denied)"] {
                #expect(output.contains(line), "expected \"\(line)\" in:\n\(output)")
            }
            let log = daemon.logText
            #expect(log.contains("could not be identified as an app") && log.contains("CAP_SYS_PTRACE"), "\(log)")
        }
    }

    /// With the unit's one capability another user's app is identified: it may be an agent, and
    /// its passcode call reaches the engine (this user has no passcode: PasscodeNotSet, not AccessDenied).
    @Test func withCapSysPtraceAloneAnotherUsersAppIsIdentified() async throws {
        try await withPrivateBus(allowingEveryUser: true) { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let daemon = try DaemonUnderTest(bus: bus)
            defer { daemon.kill() }
            try await daemon.start(watcher: watcher, launcher: Self.launcher(keepingPtrace: true))
            let output = try await runAsNobody(Self.otherUsersApp, bus)
            for line in ["create-context allowed", "register-agent allowed"] {
                #expect(output.contains(line), "expected \"\(line)\" in:\n\(output)")
            }
            #expect(!output.contains("set-require-attention \(Self.denied)"), "\(output)")
            #expect(!daemon.logText.contains("could not be identified"), "\(daemon.logText)")
        }
    }

    /// Runs its arguments chrooted into a copy of the system with a `/.flatpak-info`, in a mount
    /// namespace of its own, as bubblewrap sets up a Flatpak app. `$1` is an empty directory for the root.
    static let flatpakSandbox = """
    set -e
    root="$1"; shift
    mount -t tmpfs sandbox "$root"
    for d in usr etc tmp bin sbin lib lib32 lib64 libx32 run var; do
      if [ -L "/$d" ]; then cp -P "/$d" "$root/$d"; elif [ -d "/$d" ]; then mkdir "$root/$d"; mount --rbind "/$d" "$root/$d"; fi
    done
    printf '[Application]\\nname=org.example.Sandboxed\\n' > "$root/.flatpak-info"
    exec chroot "$root" "$@"
    """

    static let sandboxedApp = PythonDBusClient.prelude + """
    manager = dbus.Interface(bus.get_object(N, M), N + '.Manager')
    attempt('create-context', lambda: manager.CreateContext({}))
    for i in range(11):
        attempt('set-require-attention', lambda: manager.SetRequireAttention(False, 'guess-%d' % i))
    attempt('set-passcode', lambda: manager.SetPasscode('guess', 'another-passcode'))
    attempt('set-face-consent', lambda: manager.SetFaceConsent('flatpak:org.example.Sandboxed', True, 'guess'))
    attempt('register-agent', lambda: manager.RegisterAgent('C', {'Fallback': True}))
    """

    /// Eleven wrong passcodes from a Flatpak app through SetRequireAttention used to delay the
    /// user's right passcode and then lock it for good; now each is refused before it is checked.
    @Test func aSandboxedAppCannotBurnThePasscodeTriesThroughManagerMethods() async throws {
        try await withDaemon { daemon, bus in
            let user = try await Client(bus)
            defer { user.connection.close() }
            try await user.setUp(passcode: "4711-secret")
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("flatpak-root-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(at: root) }
            let result = try await runTool("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", Self.flatpakSandbox, "sandbox",
                                                                root.path, "/usr/bin/python3", "-c", Self.sandboxedApp, bus.address],
                                           timeout: .seconds(60))
            #expect(result.status == 0, "\(result.output)")
            let lines = result.output.split(separator: "\n")
            #expect(lines.filter { $0 == "set-require-attention \(Self.denied)" }.count == 11, "\(result.output)")
            for line in ["create-context allowed", "set-passcode \(Self.denied)", "set-face-consent \(Self.denied)", "register-agent \(Self.denied)"] {
                #expect(result.output.contains(line), "expected \"\(line)\" in:\n\(result.output)")
            }
            #expect(try await user.userState()["PasscodeFailures"]?.uint32 == 0)
            _ = try await user.manager("SetRequireAttention", [.bool(false), .string("4711-secret")])
        }
    }
}
