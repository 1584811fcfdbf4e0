// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// One user cannot take every context: however many connections it opens, its contexts stop at
/// `max_contexts_per_user`; other users still get theirs; and when unprivileged users together
/// fill the service, root (login screens, sudo) still finds the slots kept for it.
@Suite("Context quotas", .timeLimit(.minutes(2)))
struct ContextQuotaTests {
    /// `python3 -c hog ADDRESS MAX`: opens connections and creates contexts on each until a fresh
    /// connection's first CreateContext is refused (or MAX contexts exist), prints
    /// "<contexts> <error name, or none>", and holds every connection until killed.
    static let hog = PythonDBusClient.prelude + #"""
import signal
limit = int(sys.argv[2])
connections, count, refusal = [], 0, 'none'
while refusal == 'none' and count < limit and len(connections) < 1000:
    connection = dbus.bus.BusConnection(sys.argv[1])
    connections.append(connection)
    manager = dbus.Interface(connection.get_object(N, M, introspect=False), N + '.Manager')
    made = 0
    while count < limit:
        try:
            manager.CreateContext(dbus.Dictionary({}, signature='sv'))
        except dbus.DBusException as e:
            if made == 0: refusal = e.get_dbus_name()
            break
        made += 1
        count += 1
print('%d %s' % (count, refusal), flush=True)
signal.pause()
"""#

    /// A hog running as `user` (an account that exists: dbus-daemon refuses uids it cannot look up);
    /// its first line is its result, and it keeps its contexts until it is released.
    final class Hog {
        let process: Process
        let lines: Inbox<String>

        init(_ user: String, bus: PrivateBus, limit: Int = 1_000_000) throws {
            let account = try #require(getpwnam(user), "no account \(user)").pointee
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(account.pw_uid)", "--regid=\(account.pw_gid)", "--clear-groups",
                                 "/usr/bin/python3", "-c", ContextQuotaTests.hog, bus.address, String(limit)]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            lines = ChildOutput(pipe).lines
        }

        /// The hog's result line; a Python failure instead comes with its whole traceback.
        func result() async throws -> String {
            let first = try await lines.next(within: .seconds(60))
            guard first.hasPrefix("Traceback") else { return first }
            var traceback = [first]
            while let line = try? await lines.next(within: .seconds(2)) { traceback.append(line) }
            return traceback.joined(separator: "\n")
        }

        deinit { ChildProcess.kill(process) }
    }

    static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"

    @Test func oneUserCannotStarveOthersAndRootKeepsItsReserve() async throws {
        // Defaults for every quota but the total: 32 per connection, 256 per user, 64 kept for root.
        try await withDaemon(configuration: "max_contexts = 400\n", allowingEveryUser: true) { _, bus in
            let attacker = try Hog("nobody", bus: bus)
            let attack = try await attacker.result()
            #expect(attack == "256 \(Self.limitsExceeded)", "the attacker's connections together stop at max_contexts_per_user")

            let bystander = try Hog("daemon", bus: bus, limit: 1)
            let bystanding = try await bystander.result()
            #expect(bystanding == "1 none", "another user still gets a context")

            // A second user takes what unprivileged users may have: 400 - 64 in all.
            let second = try Hog("bin", bus: bus)
            let secondAttack = try await second.result()
            #expect(secondAttack == "79 \(Self.limitsExceeded)")

            // Root's login screen and sudo still get contexts: the reserve.
            let root = try await Client(bus)
            _ = try await root.createContext(["User": .uint32(1), "Unlock": .bool(true)])
            _ = try await root.createContext(["User": .uint32(65534)])
            _ = try await root.createContext()
            withExtendedLifetime((attacker, bystander, second)) {}
        }
    }
}
