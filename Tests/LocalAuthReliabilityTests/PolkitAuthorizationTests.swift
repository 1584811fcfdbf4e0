// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// The privileged operations are polkit actions: another user (uid 65534 through setpriv) may do
/// them when polkit says yes, not when it says no, and not when polkit is not on the bus; root
/// always may. polkit is python3-dbusmock's `polkitd` template on the test's private bus.
@Suite("polkit authorization", .timeLimit(.minutes(2)))
struct PolkitAuthorizationTests {
    typealias D = DaemonUnderTest
    static let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
    static let actions = [
        "org.localauth.LocalAuthentication1.reset-lockout",
        "org.localauth.LocalAuthentication1.act-for-other-users",
        "org.localauth.LocalAuthentication1.simulator",
    ]

    /// Prints its unique name, then one line per privileged call: `name allowed` or `name <error> <message>`.
    static let caller = PythonDBusClient.prelude + #"""
print('unique', bus.get_unique_name())
def attempt(name, call):
    try:
        call()
        print(name, 'allowed')
    except dbus.DBusException as e:
        print(name, e.get_dbus_name(), e.get_dbus_message())
manager = dbus.Interface(bus.get_object(N, M, introspect=False), N + '.Manager')
simulator = dbus.Interface(bus.get_object(N, M + '/simulator', introspect=False), N + '.Simulator')
attempt('ResetLockout', lambda: manager.ResetLockout(dbus.UInt32(0)))
attempt('Touch', lambda: simulator.Touch('right-index-finger'))
attempt('CreateContext-User', lambda: manager.CreateContext({'User': dbus.UInt32(0, variant_level=1)}))
attempt('CreateContext-Unlock', lambda: manager.CreateContext({'Unlock': dbus.Boolean(True, variant_level=1)}))
attempt('CreateContext-UnlockFalse', lambda: manager.CreateContext({'Unlock': dbus.Boolean(False, variant_level=1)}))
"""#

    enum Polkit: Sendable, CustomStringConvertible {
        case absent
        case allowing([String])
        var description: String {
            switch self {
            case .absent: "no polkit"
            case .allowing(let actions): "polkit allowing \(actions.isEmpty ? "nothing" : actions.joined(separator: ", "))"
            }
        }
    }

    /// The caller's lines by call name, and its unique name.
    struct Outcome {
        var unique = ""
        var results: [String: String] = [:]
    }

    static func attempt(_ bus: PrivateBus, asNobody: Bool) async throws -> Outcome {
        let command = ["/usr/bin/python3", "-c", caller, bus.address]
        let result = asNobody ? try await runTool("/usr/bin/setpriv", nobody + command, timeout: .seconds(30))
                              : try await runTool(command[0], Array(command.dropFirst()), timeout: .seconds(30))
        try #require(result.status == 0, "\(result.output)")
        var outcome = Outcome()
        for line in result.output.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            if parts[0] == "unique" { outcome.unique = parts[1] } else { outcome.results[parts[0]] = parts[1] }
        }
        try #require(outcome.results.count == 5, "\(result.output)")
        return outcome
    }

    /// A daemon (fingerprint simulator on), and polkit as `polkit` says, on one private bus.
    static func withPolkit(_ polkit: Polkit, _ body: (PrivateBus, DBusConnection?) async throws -> Void) async throws {
        try await withDaemon(allowingEveryUser: true) { _, bus in
            guard case .allowing(let allowed) = polkit else { return try await body(bus, nil) }
            let mock = Process()
            mock.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            mock.arguments = ["-m", "dbusmock", "--template", "polkitd"]
            mock.environment = ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": bus.address]) { $1 }
            mock.standardOutput = FileHandle.nullDevice
            try mock.run()
            defer { ChildProcess.kill(mock) }
            let waited = try await runTool("/usr/bin/gdbus", ["wait", "--address", bus.address, "--timeout", "20", "org.freedesktop.PolicyKit1"],
                                           timeout: .seconds(25))
            try #require(waited.status == 0, "polkitd mock did not appear: \(waited.output)")
            let control = try await bus.connect()
            defer { control.close() }
            _ = try await control.call(destination: "org.freedesktop.PolicyKit1", path: "/org/freedesktop/PolicyKit1/Authority",
                                       interface: "org.freedesktop.DBus.Mock", member: "SetAllowed", arguments: [.strings(allowed)])
            try await body(bus, control)
        }
    }

    @Test func anotherUserMayDoWhatPolkitAllowsAndIsAskedAsItsBusName() async throws {
        try await Self.withPolkit(.allowing(Self.actions)) { bus, control in
            let outcome = try await Self.attempt(bus, asNobody: true)
            for (name, result) in outcome.results.sorted(by: { $0.key < $1.key }) {
                #expect(result == "allowed", "uid 65534 with every action allowed by polkit: \(name) \(result)")
            }
            let calls = try #require(try await control?.call(
                destination: "org.freedesktop.PolicyKit1", path: "/org/freedesktop/PolicyKit1/Authority",
                interface: "org.freedesktop.DBus.Mock", member: "GetCalls"))
            let asked = "\(calls)"
            #expect(asked.contains("system-bus-name") && asked.contains(outcome.unique),
                    "polkit should be asked about the caller's bus name \(outcome.unique): \(asked)")
            for action in Self.actions {
                #expect(asked.contains(action), "polkit was never asked about \(action): \(asked)")
            }
        }
    }

    @Test(arguments: [Polkit.allowing([]), .absent])
    func anotherUserIsRefusedWhenPolkitSaysNoOrIsAbsent(_ polkit: Polkit) async throws {
        try await Self.withPolkit(polkit) { bus, _ in
            let outcome = try await Self.attempt(bus, asNobody: true)
            for (name, result) in outcome.results.sorted(by: { $0.key < $1.key }) {
                #expect(result.hasPrefix("org.freedesktop.DBus.Error.AccessDenied"), "uid 65534, \(polkit): \(name) \(result)")
                if case .absent = polkit {
                    #expect(result.contains("polkit is not running"), "uid 65534, \(polkit): \(name) \(result)")
                }
            }
        }
    }

    @Test(arguments: [Polkit.allowing([]), .absent])
    func rootIsAlwaysAllowed(_ polkit: Polkit) async throws {
        try await Self.withPolkit(polkit) { bus, _ in
            let outcome = try await Self.attempt(bus, asNobody: false)
            for (name, result) in outcome.results.sorted(by: { $0.key < $1.key }) {
                #expect(result == "allowed", "root, \(polkit): \(name) \(result)")
            }
        }
    }
}
