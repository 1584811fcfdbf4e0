// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// Another user floods the service with passcode changes (each one two Argon2id runs): my own
/// passcode check still waits for at most about one of their hashes, not for all of them.
@Suite("Hash flood", .timeLimit(.minutes(5)))
struct HashFloodTests {
    static let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
    static let passcode = "victim-4711"

    /// `python3 -c flooder ADDRESS CONNECTIONS`, as uid 65534: sets its own passcode, then every
    /// connection calls SetPasscode(P, P) again as soon as its previous call is answered, or 50 ms
    /// after a refusal (an operation takes longer, so the service always has all it admits; a
    /// tighter loop only burns the CPU that parallel tests need). Prints `flooding` at the first
    /// change that went through; when stdin closes, prints `changed N` and the count of each error
    /// name, and exits.
    static let flooder = PythonDBusClient.prelude + #"""
import dbus.mainloop.glib
from gi.repository import GLib
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
P = 'flood-passcode'
def manager():
    return dbus.Interface(dbus.bus.BusConnection(sys.argv[1]).get_object(N, M, introspect=False), N + '.Manager')
manager().SetPasscode('', P)
changed, errors = [0], {}
def flood(m):
    def again():
        m.SetPasscode(P, P, reply_handler=succeeded, error_handler=failed, timeout=120)
    def succeeded():
        changed[0] += 1
        if changed[0] == 1:
            print('flooding', flush=True)
        again()
    def failed(e):
        errors[e.get_dbus_name()] = errors.get(e.get_dbus_name(), 0) + 1
        GLib.timeout_add(50, lambda: again() and False)
    again()
for m in [manager() for _ in range(int(sys.argv[2]))]:
    flood(m)
loop = GLib.MainLoop()
GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_IN | GLib.IO_HUP, lambda *_: loop.quit())
loop.run()
print('changed', changed[0], *sorted('%s=%d' % item for item in errors.items()), flush=True)
"""#

    @Test func anotherUsersFloodOfPasscodeChangesDelaysMyPasscodeCheckByAboutOneHash() async throws {
        let connections = StressLevel.floodConnections
        try await withDaemon(allowingEveryUser: true) { _, bus in
            let victim = try await Client(bus)
            try await victim.setUp(passcode: Self.passcode)
            /// One correct SubmitPasscode of an evaluation of policy 2, timed from call to answer.
            func timedCheck() async throws -> Duration {
                let context = try await victim.createContext()
                let running = try await victim.begin(context, policy: 2)
                let start = ContinuousClock.now
                _ = try await victim.context(context, "SubmitPasscode", [.string(Self.passcode)], timeout: .seconds(120))
                let took = ContinuousClock.now - start
                #expect(await running.value == nil)
                return took
            }
            // The machine's speed now; the better of two, as other tests may be running.
            let quiet = min(try await timedCheck(), try await timedCheck())

            let flooder = Process()
            flooder.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            flooder.arguments = Self.nobody + ["/usr/bin/python3", "-c", Self.flooder, bus.address, String(connections)]
            let output = Pipe(), input = Pipe()
            flooder.standardOutput = output
            flooder.standardError = output
            flooder.standardInput = input
            try flooder.run()
            defer { ChildProcess.kill(flooder) }
            let lines = ChildOutput(output).lines
            let first = try await lines.next(within: .seconds(120))
            try #require(first == "flooding", "the flooder did not start: \(first)")

            var loaded: [Duration] = []
            for _ in 0..<3 { loaded.append(try await timedCheck()) }
            try input.fileHandleForWriting.close()
            let summary = try await lines.next(within: .seconds(60))

            // Fair: about my own hash plus one of theirs, slowed by their load (~4 × quiet).
            // First come, first served: one hash per connection of theirs (~connections × quiet).
            // Capped, for when `quiet` was measured while parallel tests held the CPU.
            let ceiling = min(max(.seconds(3), quiet * 8), .seconds(10))
            print("hash flood, \(connections) connections of uid 65534: my check took \(quiet) alone, \(loaded) during the flood (ceiling \(ceiling)); flooder: \(summary)")
            #expect(loaded.allSatisfy { $0 < ceiling },
                    "\(connections) connections of another uid: my passcode check took \(loaded) (alone \(quiet)); reproduce: LOCALAUTH_FLOOD_CONNECTIONS=\(connections) swift test --filter HashFloodTests")
            #expect(summary.hasPrefix("changed "), "\(summary)")
        }
    }
}
