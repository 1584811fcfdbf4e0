// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// Clients we did not write: gdbus, busctl, dbus-send and python3-dbus (also as another user).
@Suite("Interop with other D-Bus clients", .timeLimit(.minutes(2)))
struct InteropTests {
    typealias D = DaemonUnderTest

    func gdbus(_ address: String, _ path: String, _ method: String, _ arguments: [String] = []) async throws -> (status: Int32, output: String) {
        try await runTool("/usr/bin/gdbus", ["call", "--address", address, "--dest", LocalAuthBusNames.busName, "--object-path", path,
                                             "--timeout", "20", "--method", method] + arguments)
    }

    /// The first context path in a tool's output.
    static func contextPath(in output: String) -> String? {
        guard let start = output.range(of: LocalAuthBusNames.contextRoot + "/") else { return nil }
        let digits = output[start.upperBound...].prefix { $0.isNumber }
        return digits.isEmpty ? nil : LocalAuthBusNames.contextRoot + "/" + digits
    }

    @Test func gdbusDrivesAWholeEvaluation() async throws {
        try await withDaemon(configuration: "simulator_event_ttl = 600\n") { _, bus in
            let manager = "\(LocalAuthBusNames.managerInterface)."
            #expect(try await gdbus(bus.address, LocalAuthBusNames.managerPath, manager + "SetPasscode", ["", "4711-secret"]).status == 0)
            #expect(try await gdbus(bus.address, LocalAuthBusNames.managerPath, manager + "Enroll", ["fingerprint", "left-thumb", "4711-secret"]).status == 0)
            let created = try await gdbus(bus.address, LocalAuthBusNames.managerPath, manager + "CreateContext", ["{'LocalizedCancelTitle': <'Stop'>}"])
            // Context numbers are random (ContextNumbersAreUnguessableTests).
            let context = try #require(Self.contextPath(in: created.output), "\(created.output)")
            // A context belongs to the connection that created it: gone once that gdbus process left.
            let gone = try await gdbus(bus.address, context, "\(LocalAuthBusNames.contextInterface).CanEvaluatePolicy", ["3"])
            #expect(gone.status != 0 && gone.output.contains("org.freedesktop.DBus.Error.UnknownObject"), "\(gone.output)")
            #expect(try await gdbus(bus.address, LocalAuthBusNames.simulatorPath, "\(LocalAuthBusNames.simulatorInterface).Touch", ["left-thumb"]).status == 0)
            let pending = try await gdbus(bus.address, LocalAuthBusNames.simulatorPath, "org.freedesktop.DBus.Properties.Get", [LocalAuthBusNames.simulatorInterface, "Pending"])
            #expect(pending.output.contains("<uint32 1>"), "\(pending.output)")
            let state = try await gdbus(bus.address, LocalAuthBusNames.managerPath, manager + "GetUserState")
            #expect(state.output.contains("'Enrollments': <[('fingerprint', 'left-thumb')]>"), "\(state.output)")
        }
    }

    @Test func busctlReadsPropertiesAndCalls() async throws {
        try await withDaemon { _, bus in
            let version = try await runTool("/usr/bin/busctl", ["--address=\(bus.address)", "get-property", LocalAuthBusNames.busName, LocalAuthBusNames.managerPath, LocalAuthBusNames.managerInterface, "Version"])
            #expect(version.status == 0 && version.output.trimmingCharacters(in: .whitespacesAndNewlines) == "s \"1.0.0\"", "\(version.output)")
            let state = try await runTool("/usr/bin/busctl", ["--address=\(bus.address)", "call", LocalAuthBusNames.busName, LocalAuthBusNames.managerPath, LocalAuthBusNames.managerInterface, "GetUserState"])
            #expect(state.status == 0 && state.output.hasPrefix("a{sv} \(LocalAuthUserStateKey.allCases.count) "), "\(state.output)")
            let created = try await runTool("/usr/bin/busctl", ["--address=\(bus.address)", "call", LocalAuthBusNames.busName, LocalAuthBusNames.managerPath, LocalAuthBusNames.managerInterface,
                                                                 "CreateContext", "a{sv}", "1", "InteractionNotAllowed", "b", "true"])
            let context = try #require(Self.contextPath(in: created.output), "\(created.output)")
            let refused = try await runTool("/usr/bin/busctl", ["--address=\(bus.address)", "call", LocalAuthBusNames.busName, context,
                                                                 LocalAuthBusNames.contextInterface, "EvaluatePolicy", "us", "2", "x"])
            #expect(refused.status != 0 && refused.output.contains("authentication needs interaction") == false)
        }
    }

    @Test func dbusSendGetsPropertiesAndErrors() async throws {
        try await withDaemon { _, bus in
            let version = try await runTool("/usr/bin/dbus-send", ["--bus=\(bus.address)", "--print-reply", "--dest=\(LocalAuthBusNames.busName)", LocalAuthBusNames.managerPath,
                                                                    "org.freedesktop.DBus.Properties.Get", "string:\(LocalAuthBusNames.managerInterface)", "string:Version"])
            #expect(version.output.contains("string \"1.0.0\""), "\(version.output)")
            let unknown = try await runTool("/usr/bin/dbus-send", ["--bus=\(bus.address)", "--print-reply", "--dest=\(LocalAuthBusNames.busName)",
                                                                    "/org/localauth/LocalAuthentication1/context/77", "\(LocalAuthBusNames.contextInterface).Cancel"])
            #expect(unknown.status != 0 && unknown.output.contains("org.freedesktop.DBus.Error.UnknownObject"), "\(unknown.output)")
            let badPolicy = try await runTool("/usr/bin/dbus-send", ["--bus=\(bus.address)", "--print-reply", "--dest=\(LocalAuthBusNames.busName)",
                                                                      LocalAuthBusNames.managerPath, "\(LocalAuthBusNames.managerInterface).ResetLockout", "string:root"])
            #expect(badPolicy.output.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(badPolicy.output)")
        }
    }

    static let pythonOwner = """
    import dbus, sys
    bus = dbus.bus.BusConnection(sys.argv[1])
    N = 'org.localauth.LocalAuthentication1'
    manager = dbus.Interface(bus.get_object(N, '/org/localauth/LocalAuthentication1'), N + '.Manager')
    manager.SetPasscode('', 'py-passcode')
    manager.Enroll('face', 'primary', 'py-passcode')
    path = manager.CreateContext({'AllowableReuseDuration': dbus.Double(30.0)})
    context = dbus.Interface(bus.get_object(N, path), N + '.Context')
    props = dbus.Interface(bus.get_object(N, path), 'org.freedesktop.DBus.Properties')
    simulator = dbus.Interface(bus.get_object(N, '/org/localauth/LocalAuthentication1/simulator'), N + '.Simulator')
    simulator.PresentFace('primary', True)
    context.EvaluatePolicy(dbus.UInt32(1), 'python test', timeout=20)
    print('state', props.Get(N + '.Context', 'State'))
    print('domain', len(props.Get(N + '.Context', 'EvaluatedPolicyDomainState')))
    print('reuse', props.Get(N + '.Context', 'AllowableReuseDuration'))
    """

    static let pythonStranger = PythonDBusClient.prelude + """
    manager = dbus.Interface(bus.get_object(N, M), N + '.Manager')
    attempt('user-option', lambda: manager.CreateContext({'User': dbus.UInt32(0)}))
    attempt('unlock-option', lambda: manager.CreateContext({'Unlock': False}))
    attempt('reset', lambda: manager.ResetLockout(dbus.UInt32(0)))
    simulator = dbus.Interface(bus.get_object(N, '/org/localauth/LocalAuthentication1/simulator'), N + '.Simulator')
    attempt('touch', lambda: simulator.Touch('left-thumb'))
    other = dbus.Interface(bus.get_object(N, sys.argv[2]), N + '.Context')
    attempt('foreign-context', lambda: other.CanEvaluatePolicy(dbus.UInt32(2)))
    attempt('foreign-property', lambda: dbus.Interface(bus.get_object(N, sys.argv[2]), 'org.freedesktop.DBus.Properties').Get(N + '.Context', 'State'))
    print('own-state', manager.GetUserState()['PasscodeSet'])
    own = dbus.Interface(bus.get_object(N, manager.CreateContext({})), N + '.Context')
    attempt('own-context', lambda: own.CanEvaluatePolicy(dbus.UInt32(2)))
    """

    @Test func python3DbusAsOwnerAndAsAnotherUser() async throws {
        try await withDaemon(allowingEveryUser: true) { _, bus in
            let owner = try await runTool("/usr/bin/python3", ["-c", Self.pythonOwner, bus.address], timeout: .seconds(30))
            #expect(owner.status == 0, "\(owner.output)")
            #expect(owner.output.contains("state idle") && owner.output.contains("domain 32") && owner.output.contains("reuse 30.0"), "\(owner.output)")
            // A context whose owner stays connected, for the stranger to try.
            let rootClient = try await Client(bus)
            let path = try await rootClient.createContext()

            let stranger = try await runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                                   "/usr/bin/python3", "-c", Self.pythonStranger, bus.address, String(path)],
                                             timeout: .seconds(30))
            #expect(stranger.status == 0, "\(stranger.output)")
            let denied = "org.freedesktop.DBus.Error.AccessDenied"
            for line in ["user-option", "unlock-option", "reset", "touch"] {
                #expect(stranger.output.contains("\(line) \(denied)"), "\(line): \(stranger.output)")
            }
            for line in ["foreign-context", "foreign-property"] {  // not even told that it exists
                #expect(stranger.output.contains("\(line) org.freedesktop.DBus.Error.UnknownObject"), "\(line): \(stranger.output)")
            }
            #expect(stranger.output.contains("own-state 0"), "nobody has no passcode: \(stranger.output)")
            #expect(stranger.output.contains("own-context org.localauth.LocalAuthentication1.Error.PasscodeNotSet"), "\(stranger.output)")
        }
    }
}
