// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// A client written from the XML alone — a `Gio.DBusProxy` on the Manager — sees every change the
/// contract promises: `Backends` (EmitsChangedSignal true) when a sensor goes away and comes back,
/// and `UserStateChanged` for each change of its own user's state; another user hears none of it.
@Suite("Property and user-state changes reach a Gio proxy", .timeLimit(.minutes(2)))
struct PropertyChangeTests {
    typealias D = DaemonUnderTest

    /// argv[1]: the bus. Prints `ready <backends>`, then `backends <cached Backends>` for every
    /// PropertiesChanged and `state <keys>` for every UserStateChanged. A line `passcode` on stdin
    /// sets its own passcode; end of input quits.
    static let watcher = #"""
import sys
from gi.repository import Gio, GLib
N, M = 'org.localauth.LocalAuthentication1', '/org/localauth/LocalAuthentication1'
flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
connection = Gio.DBusConnection.new_for_address_sync(sys.argv[1], flags, None, None)
proxy = Gio.DBusProxy.new_sync(connection, Gio.DBusProxyFlags.NONE, None, N, M, N + '.Manager', None)
def say(*words):
    print(*words, flush=True)
def backends():
    return ','.join('%s=%s' % (b[0], b[2]) for b in proxy.get_cached_property('Backends').unpack())
def state(s):
    return ' '.join('%s=%s' % (k, s[k]) for k in ('PasscodeSet', 'Enrollments', 'BiometryFailures', 'BiometryLockedOut',
                                                    'PasscodeFailures', 'PasscodeLockedOut', 'RequireAttention'))
proxy.connect('g-properties-changed', lambda p, changed, invalidated: say('backends', backends()))
proxy.connect('g-signal', lambda p, sender, name, args: say('state', state(args.unpack()[0])) if name == 'UserStateChanged' else None)
proxy.call_sync('GetUserState', None, Gio.DBusCallFlags.NONE, -1, None)
loop = GLib.MainLoop()
def command(channel, condition):
    line = sys.stdin.readline()
    if not line:
        loop.quit()
        return False
    if line.strip() == 'passcode':
        proxy.call_sync('SetPasscode', GLib.Variant('(ss)', ('', 'nobody-secret')), Gio.DBusCallFlags.NONE, -1, None)
    return True
GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_IN | GLib.IO_HUP, command)
say('ready', backends())
loop.run()
"""#

    /// The watcher, running as root or as uid 65534, with its output lines in an inbox.
    final class Watcher: Sendable {
        let process = Process()
        let input = Pipe()
        let lines: Inbox<String>

        init(_ bus: PrivateBus, asNobody: Bool) throws {
            let command = ["/usr/bin/python3", "-c", PropertyChangeTests.watcher, bus.address]
            process.executableURL = URL(fileURLWithPath: asNobody ? "/usr/bin/setpriv" : command[0])
            process.arguments = asNobody ? ["--reuid=65534", "--regid=65534", "--clear-groups"] + command : Array(command.dropFirst())
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            process.standardInput = input
            try process.run()
            lines = ChildOutput(output).lines
        }

        /// The next line, which must start with `word`.
        func next(_ word: String) async throws -> String {
            let line = try await lines.next(within: .seconds(15))
            try #require(line == word || line.hasPrefix(word + " "), "expected a \(word) line, got: \(line) (all: \(lines.received))")
            return line
        }

        func send(_ line: String) { ChildProcess.send(line + "\n", to: input) }

        deinit { ChildProcess.kill(process) }
    }

    /// Reads the watcher's `word` lines until one contains `text`. A passcode check counts a
    /// failure before it verifies (so a crash cannot hide a guess), so one call may announce a
    /// state in between; every announcement is a state the user really had.
    static func expectEventually(_ watcher: Watcher, _ word: String, containing text: String, after step: String) async throws {
        var seen: [String] = []
        defer { if !seen.contains(where: { $0.contains(text) }) { Issue.record("after \(step): no \(word) line with \(text); saw \(seen)") } }
        while true {
            let line = try await watcher.next(word)
            seen.append(line)
            if line.contains(text) { return }
        }
    }

    @Test func aGioProxySeesEveryBackendsChangeAndEveryChangeOfItsUsersState() async throws {
        try await withDaemon(allowingEveryUser: true) { _, bus in
            let client = try await Client(bus)
            // Every state of root from now on names this finger; uid 65534 must hear none of them.
            try await client.setUp(passcode: "4711-secret", fingers: ["right-index-finger"])
            let root = try Watcher(bus, asNobody: false)
            try await Self.expectEventually(root, "ready", containing: "fingerprint=True", after: "start")
            let stranger = try Watcher(bus, asNobody: true)
            try await Self.expectEventually(stranger, "ready", containing: "fingerprint=True", after: "start as uid 65534")

            try await client.simulator("SetConnected", [.string("fingerprint"), .bool(false)])
            try await Self.expectEventually(root, "backends", containing: "fingerprint=False", after: "SetConnected false")
            try await client.simulator("SetConnected", [.string("fingerprint"), .bool(true)])
            try await Self.expectEventually(root, "backends", containing: "fingerprint=True", after: "SetConnected true")

            _ = try await client.manager("Enroll", [.string("fingerprint"), .string("left-thumb"), .string("4711-secret")])
            try await Self.expectEventually(root, "state", containing: "left-thumb", after: "Enroll")
            _ = await errorName { _ = try await client.manager("SetPasscode", [.string("wrong-guess"), .string("new-secret")]) }
            try await Self.expectEventually(root, "state", containing: "PasscodeFailures=1", after: "a wrong passcode")
            _ = try await client.manager("ResetLockout", [.uint32(0)])
            try await Self.expectEventually(root, "state", containing: "PasscodeFailures=0", after: "ResetLockout")
            _ = try await client.manager("SetRequireAttention", [.bool(false), .string("4711-secret")])
            try await Self.expectEventually(root, "state", containing: "RequireAttention=False", after: "SetRequireAttention")

            // Everything above reached uid 65534's connection (if at all) before its own change does.
            stranger.send("passcode")
            while try await !stranger.lines.next(within: .seconds(15)).contains("PasscodeSet=True") {}
            let heard = stranger.lines.received.filter { $0.hasPrefix("state ") }
            #expect(!heard.isEmpty && heard.allSatisfy { !$0.contains("right-index-finger") }, "uid 65534 heard root's user state: \(heard)")
        }
    }

    /// A context's `PropertiesChanged` carries what changed and nothing else, and Invalidate sends
    /// none (its reply is the owner's notice): not for a context whose evaluation ended before any
    /// change was announced (a queued touch), one that announced changes, or one that never evaluated.
    @Test func invalidateAnnouncesNothing() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            try await client.setUp(passcode: "4711-secret", fingers: ["right-index-finger"])
            /// Runs `steps` on a new context, invalidates it, and returns every PropertiesChanged it saw, in order.
            func changes(_ steps: (String) async throws -> Void) async throws -> [[String: DBusValue]] {
                let context = try await client.createContext()
                let heard = Inbox<[String: DBusValue]>()
                let subscription = try await client.connection.subscribe(
                    DBusMatchRule(path: context, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")) { signal in
                    if signal.arguments.first?.string == LocalAuthBusNames.contextInterface, let changed = signal.arguments.dropFirst().first?.vardict {
                        heard.put(changed)
                    }
                }
                defer { client.connection.unsubscribe(subscription) }
                try await steps(context)
                _ = try await client.context(context, "Invalidate")
                // The daemon's messages to us arrive in order: whatever Invalidate sent came before this reply.
                _ = try await client.connection.call(destination: LocalAuthBusNames.busName, path: LocalAuthBusNames.managerPath,
                                                     interface: "org.freedesktop.DBus.Peer", member: "Ping")
                return heard.received
            }

            let queued = try await changes { context in
                try await client.simulator("Touch", [.string("right-index-finger")])
                _ = try await client.context(context, "EvaluatePolicy", [.uint32(1), .string("test")])
            }
            #expect(queued.isEmpty, "a queued match, then Invalidate: \(queued)")

            let announced = try await changes { context in
                let evaluation = try await client.begin(context, policy: 1)
                try await client.simulator("Touch", [.string("right-index-finger")])
                #expect(await evaluation.value == nil)
            }
            #expect(announced.first?["State"]?.string == "biometry", "\(announced)")
            #expect(announced.dropFirst().contains { $0["EvaluatedPolicyDomainState"] != nil }, "the domain state a match set: \(announced)")
            #expect(announced.dropFirst().allSatisfy { $0["LocalizedCancelTitle"] == nil }, "an unchanged property sent again: \(announced)")
            #expect(!announced.contains { $0["State"]?.string == "invalidated" }, "\(announced)")

            let idle = try await changes { _ in }
            #expect(idle.isEmpty, "\(idle)")
        }
    }
}
