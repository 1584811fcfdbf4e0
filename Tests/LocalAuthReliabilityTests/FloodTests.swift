// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Synchronization
import Testing

/// One unprivileged connection floods the daemon with calls flagged NO_REPLY_EXPECTED (the bus's
/// pending-reply limit does not apply to them): the daemon stays up, answers others promptly, and
/// a victim's lockout stays.
@Suite("Flood", .timeLimit(.minutes(5)))
struct FloodTests {
    typealias D = DaemonUnderTest

    /// `python3 -c script ADDRESS SLOW LARGE`: as its own user, sets a passcode, then sends SLOW
    /// SetRequireAttention calls with the right passcode (each an Argon2id verification and a
    /// state save: slow) and LARGE Enroll calls with a 512 KiB label (refused fast), none asking
    /// for a reply. The large ones pile up behind the slow ones, past libdbus's 63 MiB of received
    /// messages on the old code. Prints `sent`, then, once the daemon has dispatched everything
    /// (a Peer.Ping is answered in order), `dispatched`, then waits for its own queue to drain and
    /// prints `drained`, each with the seconds since the flood started.
    static let flooder = PythonDBusClient.prelude + #"""
import time, dbus.lowlevel
slow, large = int(sys.argv[2]), int(sys.argv[3])
manager = dbus.Interface(bus.get_object(N, M, introspect=False), N + '.Manager')
manager.SetPasscode('', 'flood-passcode-1')
started = time.time()
label = 'x' * (512 * 1024)
def call(member, signature, *arguments):
    message = dbus.lowlevel.MethodCallMessage(N, M, N + '.Manager', member)
    message.append(*arguments, signature=signature)
    message.set_no_reply(True)
    bus.send_message(message)
for _ in range(slow):
    call('SetRequireAttention', 'bs', True, 'flood-passcode-1')
for sent in range(large):
    call('Enroll', 'sss', 'fingerprint', label, 'flood-passcode-1')
    if sent % 64 == 63:
        bus.flush()
bus.flush()
print('sent', round(time.time() - started, 1), flush=True)
dbus.Interface(bus.get_object(N, M, introspect=False), 'org.freedesktop.DBus.Peer').Ping(timeout=120)
print('dispatched', round(time.time() - started, 1), flush=True)
deadline = time.time() + 120
while True:
    try:
        manager.GetUserState(timeout=120)
        break
    except dbus.DBusException as e:
        if e.get_dbus_name() != 'org.freedesktop.DBus.Error.LimitsExceeded' or time.time() > deadline:
            raise
        time.sleep(0.05)
print('drained', round(time.time() - started, 1), flush=True)
"""#

    final class Finished: Sendable {
        let flag = Atomic<Bool>(false)
    }

    @Test func noReplyFloodFromOneUserNeitherCrashesNorStallsTheDaemon() async throws {
        let large = StressLevel.floodMessages
        let reproduce = "reproduce: LOCALAUTH_FLOOD_MESSAGES=\(large) swift test --filter FloodTests"
        try await withDaemon(configuration: "biometry_max_failures = 2\n", allowingEveryUser: true) { daemon, bus in
            // The victim: biometry locked out by two no-matches.
            let victim = try await Client(bus)
            try await victim.setUp(fingers: ["right-index-finger"])
            let context = try await victim.createContext()
            async let failed = errorName { _ = try await victim.context(context, "EvaluatePolicy", [.uint32(1), .string("x")]) }
            try await victim.simulator("Touch", [.string("left-thumb")])
            try await victim.simulator("Touch", [.string("left-thumb")])
            #expect(await failed == LocalAuthBusNames.errorPrefix + "BiometryLockout")
            let locked = try await victim.userState()
            #expect(locked["BiometryLockedOut"] == .bool(true), "\(locked)")
            let pid = try #require(try await victim.connection.credentials(of: LocalAuthBusNames.busName).pid)

            let finished = Finished()
            let flood = Task {
                defer { finished.flag.store(true, ordering: .releasing) }
                return try await runTool("/usr/bin/setpriv", AccessTests.nobody + ["/usr/bin/python3", "-c", Self.flooder, bus.address, "16", String(large)],
                                         timeout: .seconds(StressLevel.isStress ? 600 : 180))
            }
            // While the flood is queued, another client is answered promptly, again and again.
            let bystander = try await Client(bus)
            var slowest = Duration.zero, probes = 0
            while !finished.flag.load(ordering: .acquiring) {
                let clock = ContinuousClock(), start = clock.now
                let outcome = await Self.errorMessage { _ = try await bystander.manager("GetUserState", []) }
                slowest = max(slowest, clock.now - start)
                probes += 1
                #expect(outcome == nil, "a bystander's GetUserState during the flood failed: \(outcome ?? ""); daemon log: \(daemon.logText.suffix(2000)); \(reproduce)")
                if outcome != nil { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let result = try await flood.value
            #expect(result.status == 0 && result.output.contains("drained"), "flooder: \(result.output.suffix(2000)); \(reproduce)")
            #expect(slowest < .seconds(5), "a bystander waited \(slowest) for GetUserState during the flood (\(probes) calls); \(reproduce)")

            // The same daemon process, still serving, and the victim's lockout stays.
            let after = try await victim.connection.credentials(of: LocalAuthBusNames.busName).pid
            #expect(after == pid, "the daemon was replaced or died (pid \(pid) → \(after.map(String.init) ?? "none")); \(reproduce)")
            let state = try await victim.userState()
            #expect(state["BiometryLockedOut"] == .bool(true) && state["BiometryFailures"] == locked["BiometryFailures"],
                    "the victim's lockout did not survive the flood: \(state)")
            #expect(daemon.logText.contains("request queue"), "the refusals were not logged: \(daemon.logText.suffix(2000))")
        }
    }

    /// Calls that expect a reply are refused with LimitsExceeded over the per-connection and the
    /// per-user bound, and the bounds free up again as replies go out.
    @Test func callsOverTheQueueBoundsAreRefusedWithLimitsExceeded() async throws {
        let configuration = "max_queued_requests_per_client = 3\nmax_queued_requests_per_user = 4\n"
        try await withDaemon(configuration: configuration) { daemon, bus in
            let first = try await Client(bus), second = try await Client(bus)
            try await first.setUp()
            _ = try await second.userState()  // the daemon knows both connections' uid from here on
            // Each SetRequireAttention verifies the passcode with Argon2id: slow, so the calls queue.
            let outcomes = await withTaskGroup(of: String?.self) { group in
                for client in [first, second] {
                    for _ in 0..<6 {
                        group.addTask { await Self.errorMessage { _ = try await client.manager("SetRequireAttention", [.bool(true), .string("4711-secret")]) } }
                    }
                }
                return await group.reduce(into: [String?]()) { $0.append($1) }
            }
            let refusal = "org.freedesktop.DBus.Error.LimitsExceeded: Too many requests queued from this connection or its user; wait for replies before sending more."
            let refused = outcomes.filter { $0 == refusal }.count, answered = outcomes.filter { $0 == nil }.count
            #expect(refused + answered == outcomes.count, "\(outcomes)")
            #expect(refused >= 12 - 4 - 2 && refused < 12, "12 calls at once, at most 4 queued per user: \(outcomes)")
            let message = await Self.errorMessage { _ = try await first.manager("SetRequireAttention", [.bool(true), .string("4711-secret")]) }
            #expect(message == nil, "a call after the burst was answered: \(message ?? "")")
            // The bounds are free again: a second burst gets calls through as well.
            let again = await withTaskGroup(of: String?.self) { group in
                for _ in 0..<4 { group.addTask { await errorName { _ = try await second.userState() } } }
                return await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(again.contains(nil), "\(again)")
            #expect(daemon.logText.contains("over its request queue limit"), "\(daemon.logText.suffix(2000))")
        }
    }

    /// One call whose arguments alone exceed what a client may queue is refused on its own with
    /// its size (not "N requests queued": nothing is), and the connection goes on being served.
    @Test func oneCallLargerThanAClientMayQueueIsRefusedWithItsSize() async throws {
        try await withDaemon(configuration: "max_queued_bytes_per_client = 4096\n") { daemon, bus in
            let client = try await Client(bus)
            try await client.setUp()
            let save = { (secret: [UInt8]) in
                await Self.errorMessage {
                    _ = try await client.connection.call(destination: LocalAuthBusNames.busName, path: LocalAuthBusNames.rightsPath,
                                                         interface: LocalAuthBusNames.rightsInterface, member: "SaveRight",
                                                         arguments: [.string("big"), .string("default"), .bytes(secret), .vardict([:])])
                }
            }
            let refused = try #require(await save([UInt8](repeating: 7, count: 8192)))
            #expect(refused.contains("LimitsExceeded") && refused.contains("larger than one client may queue (4096 bytes)"), "\(refused)")
            #expect(await save([UInt8](repeating: 7, count: 100)) == nil, "a call that fits is served")
            #expect(daemon.logText.contains("more than one client may queue (4096 bytes); refused"), "\(daemon.logText.suffix(2000))")
            #expect(!daemon.logText.contains("over its request queue limit: 0 requests"), "\(daemon.logText.suffix(2000))")
        }
    }

    /// The message of the error a call failed with, or nil if it succeeded.
    static func errorMessage(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch {
            return "\(error)"
        }
    }
}
