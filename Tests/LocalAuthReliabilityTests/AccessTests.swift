// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// Another user (uid 65534 through setpriv) can neither call, read nor hear my context, nor tell
/// whether it exists, nor drive the simulator or reset lockouts.
@Suite("Access", .timeLimit(.minutes(2)))
struct AccessTests {
    typealias D = DaemonUnderTest
    static let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]

    /// argv[2:5]: the owner's live context, its invalidated one, and one that never existed.
    /// Each context call is made on all three and printed once if every answer is the same.
    static let stranger = PythonDBusClient.prelude + #"""
import hashlib
def answer(call):
    try:
        return 'returned ' + hashlib.sha256(str(call()).encode()).hexdigest()
    except dbus.DBusException as e:
        return e.get_dbus_name() + ' ' + str(e.get_dbus_message())
def probe(name, call):
    answers = [answer(lambda: call(bus.get_object(N, path, introspect=False))) for path in sys.argv[2:5]]
    print(name, 'same ' + answers[0] if len(set(answers)) == 1 else 'differs ' + ' / '.join(answers))
for member, arguments in [('CanEvaluatePolicy', [dbus.UInt32(2)]), ('EvaluatePolicy', [dbus.UInt32(2), 'x']), ('SubmitPasscode', ['guess-1234']),
                          ('Cancel', []), ('Fallback', []), ('Invalidate', [])]:
    probe('context-' + member, lambda context: context.get_dbus_method(member, N + '.Context')(*arguments))
properties = lambda context: dbus.Interface(context, 'org.freedesktop.DBus.Properties')
probe('context-Get', lambda context: properties(context).Get(N + '.Context', 'State'))
probe('context-GetAll', lambda context: properties(context).GetAll(N + '.Context'))
probe('context-Set', lambda context: properties(context).Set(N + '.Context', 'LocalizedCancelTitle', dbus.String('mine', variant_level=1)))
probe('context-Introspect', lambda context: context.Introspect(dbus_interface='org.freedesktop.DBus.Introspectable'))
simulator = bus.get_object(N, M + '/simulator', introspect=False)
for member, arguments in [('Touch', ['right-index-finger']), ('FingerprintRetry', ['too-fast']), ('PresentFace', ['primary', True]),
                          ('SetConnected', ['fingerprint', False]), ('PressCancel', []), ('PressFallback', []), ('Reset', [])]:
    attempt('simulator-' + member, lambda: simulator.get_dbus_method(member, N + '.Simulator')(*arguments))
attempt('simulator-Get', lambda: dbus.Interface(simulator, 'org.freedesktop.DBus.Properties').Get(N + '.Simulator', 'Pending'))
attempt('simulator-GetAll', lambda: dbus.Interface(simulator, 'org.freedesktop.DBus.Properties').GetAll(N + '.Simulator'))
manager = dbus.Interface(bus.get_object(N, M, introspect=False), N + '.Manager')
attempt('manager-ResetLockout-root', lambda: manager.ResetLockout(dbus.UInt32(0)))
attempt('manager-ResetLockout-self', lambda: manager.ResetLockout(dbus.UInt32(65534)))
"""#

    @Test func anotherUserCannotCallReadOrHearMyContextNorDriveTheSimulator() async throws {
        try await withDaemon(allowingEveryUser: true) { daemon, bus in
            let owner = try await Client(bus)
            try await owner.setUp(fingers: ["right-index-finger"])
            for _ in 0..<2 {  // two failures on record, which a reset would clear
                let context = try await owner.createContext()
                // Touched once the evaluation is under way, so the touch is read before the Cancel.
                let failed = try await owner.begin(context, policy: 1, reason: "x")
                try await owner.simulator("Touch", [.string("left-thumb")])
                _ = try await owner.context(context, "Cancel")
                _ = await failed.value
            }
            let before = try await owner.userState()
            let context = try await owner.createContext()
            let invalidated = try await owner.createContext()
            _ = try await owner.context(invalidated, "Invalidate")
            let never = LocalAuthBusNames.managerPath + "/context/999999"

            // A stranger listening to everything the daemon sends, with ordinary match rules.
            let monitor = Process()
            monitor.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            monitor.arguments = Self.nobody + ["/usr/bin/gdbus", "monitor", "--address", bus.address, "--dest", LocalAuthBusNames.busName]
            let pipe = Pipe()
            monitor.standardOutput = pipe
            monitor.standardError = pipe
            try monitor.run()
            defer { ChildProcess.kill(monitor) }
            let heard = ChildOutput(pipe), lines = heard.lines
            // gdbus subscribes before it asks who owns the name, so this line means it listens.
            while try await !lines.next(within: .seconds(10)).contains("is owned by") {}

            let attempts = try await runTool("/usr/bin/setpriv", Self.nobody + ["/usr/bin/python3", "-c", Self.stranger, bus.address, context, invalidated, never],
                                             timeout: .seconds(30))
            #expect(attempts.status == 0, "\(attempts.output)")
            let outcomes = attempts.output.split(separator: "\n")
            #expect(outcomes.count == 21, "\(attempts.output)")
            for outcome in outcomes {
                // Someone else's context looks like no context at all: existence is not even revealed.
                if outcome.hasPrefix("context-Introspect") {
                    #expect(outcome.contains(" same returned "), "uid 65534: \(outcome)")
                } else if outcome.hasPrefix("context-") {
                    #expect(outcome.contains(" same org.freedesktop.DBus.Error.UnknownObject "), "uid 65534: \(outcome)")
                } else {
                    #expect(outcome.hasSuffix("org.freedesktop.DBus.Error.AccessDenied"), "uid 65534: \(outcome)")
                }
            }
            // The owner's own evaluation, with prompts and property changes the stranger must not hear.
            async let evaluation = owner.context(context, "EvaluatePolicy", [.uint32(1), .string("mine")])
            try await owner.simulator("Touch", [.string("right-index-finger")])
            _ = try await evaluation
            #expect(try await owner.userState()["BiometryFailures"] == .uint32(0))
            #expect(before["BiometryFailures"] == .uint32(2), "the stranger's ResetLockout must not have cleared them: \(before)")

            // The daemon leaving is the last thing the bus tells the monitor, after all it routed before.
            daemon.kill()
            while try await !lines.next(within: .seconds(10)).contains("does not have an owner") {}
            let transcript = heard.text
            #expect(!transcript.contains("/context/"), "uid 65534 heard the owner's context: \(transcript)")
        }
    }
}
