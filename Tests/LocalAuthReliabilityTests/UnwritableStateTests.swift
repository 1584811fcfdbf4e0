// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// The state directory is remounted read-only under a running daemon: attempts are refused instead
/// of being counted in memory only, and a restart never forgets a failure that was reported.
@Suite("Unwritable state directory", .timeLimit(.minutes(2)))
struct UnwritableStateTests {
    typealias D = DaemonUnderTest
    static let failed = "org.freedesktop.DBus.Error.Failed"

    /// Read-only bind mounts need root with CAP_SYS_ADMIN (as in CI); elsewhere the test is skipped.
    static let canBindMount: Bool = {
        guard getuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("bind-probe-\(UUID().uuidString)").path
        guard (try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)) != nil else { return false }
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard let bind = BindMount(probe) else { return false }
        defer { bind.remove() }
        return bind.setReadOnly(true)
    }()

    /// A bind mount of a directory over itself, made before the daemon opens it: remounting that
    /// mount read-only also stops writes through descriptors the daemon already holds (a new
    /// mount over the path would not). `remove()` detaches it.
    struct BindMount {
        let path: String

        init?(_ path: String) {
            guard mount(path, path, nil, UInt(MS_BIND), nil) == 0 else { return nil }
            self.path = path
        }

        func setReadOnly(_ readOnly: Bool) -> Bool {
            mount(nil, path, nil, UInt(MS_REMOUNT | MS_BIND) | (readOnly ? UInt(MS_RDONLY) : 0), nil) == 0
        }

        func remove() { umount2(path, Int32(MNT_DETACH)) }
    }

    /// One biometric evaluation: one wrong touch once it listens, then Cancel; the D-Bus error it ended with.
    static func wrongTouch(_ client: Client) async throws -> String? {
        let context = try await client.createContext()
        let prompted = Inbox<Void>()
        let subscription = try await client.connection.subscribe(
            DBusMatchRule(path: context, interface: LocalAuthBusNames.contextInterface, member: "Prompt")) { _ in prompted.put(()) }
        defer { client.connection.unsubscribe(subscription) }
        let evaluation = Task { await errorName { _ = try await client.context(context, "EvaluatePolicy", [.uint32(1), .string("vault")]) } }
        let ended = Task { _ = await evaluation.value; prompted.put(()) }
        _ = try await prompted.next(within: .seconds(20))
        if try await client.property(context, "State") == .string("biometry") {
            try await client.simulator("Touch", [.string("left-thumb")])
        }
        _ = try? await client.context(context, "Cancel")
        _ = await ended.value
        return await evaluation.value
    }

    @Test(.enabled(if: canBindMount)) func aReadOnlyStateDirectoryRefusesAttemptsAndARestartForgetsNothing() async throws {
        try await withPrivateBus { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("readonly-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
            try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let bind = try #require(BindMount(stateDirectory))
            defer { bind.remove() }
            let daemon = try DaemonUnderTest(bus: bus, stateDirectory: stateDirectory)
            try await daemon.start(watcher: watcher)
            let client = try await Client(bus)
            defer { client.connection.close() }
            try await client.setUp(fingers: ["right-index-finger"])

            #expect(bind.setReadOnly(true))
            var outcomes: [String?] = []
            for _ in 0..<5 { outcomes.append(try await Self.wrongTouch(client)) }
            let reported = outcomes.filter { $0 != Self.failed }.count
            #expect(outcomes == Array(repeating: Self.failed, count: 5), "every attempt ends with Failed: \(outcomes)")
            #expect(daemon.logText.components(separatedBy: "Could not save").count - 1 == 1, "logged once: \(daemon.logText)")
            do {
                _ = try await client.manager("SetRequireAttention", [.bool(false), .string("4711-secret")])
                Issue.record("a passcode check was accepted")
            } catch let error as DBusError {
                #expect(error.name.rawValue == Self.failed, "a passcode check is refused too: \(error)")
                #expect(error.message.contains("free disk space or make localauthd's state directory writable"), "says what to do: \(error)")
            }

            #expect(bind.setReadOnly(false))
            daemon.kill()
            let restarted = try DaemonUnderTest(bus: bus, stateDirectory: stateDirectory)
            try await restarted.start(watcher: watcher)
            let failures = try await client.userState()["BiometryFailures"]?.uint32 ?? 0
            #expect(Int(failures) >= reported, "\(reported) no-matches were reported, \(failures) survived the restart")
            restarted.kill()
        }
    }
}
