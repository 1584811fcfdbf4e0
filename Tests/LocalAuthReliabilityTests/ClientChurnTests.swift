// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// Clients that create contexts, start evaluations and die by SIGKILL, again and again: nothing
/// they held stays behind and the daemon's memory stays flat.
@Suite("Client churn", .timeLimit(.minutes(10)))
struct ClientChurnTests {
    typealias D = DaemonUnderTest

    /// `python3 -c script ADDRESS ROUNDS BATCH`: forks BATCH children at a time; each connects,
    /// creates 3 contexts, starts an evaluation on each (a following CanEvaluatePolicy on the same
    /// context is answered only after the evaluation started), says so and waits to be killed.
    static let script = #"""
import os, sys, signal, dbus, dbus.lowlevel
address, rounds, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
N = 'org.localauth.LocalAuthentication1'; M = '/org/localauth/LocalAuthentication1'
done = 0
while done < rounds:
    children = []
    for _ in range(min(batch, rounds - done)):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                bus = dbus.bus.BusConnection(address)
                manager = dbus.Interface(bus.get_object(N, M, introspect=False), N + '.Manager')
                for _ in range(3):
                    path = manager.CreateContext(dbus.Dictionary({}, signature='sv'))
                    message = dbus.lowlevel.MethodCallMessage(N, path, N + '.Context', 'EvaluatePolicy')
                    message.append(dbus.UInt32(1), 'churn', signature='us')
                    bus.send_message(message)
                    dbus.Interface(bus.get_object(N, path, introspect=False), N + '.Context').CanEvaluatePolicy(dbus.UInt32(2))
                os.write(w, b'ready')
            except Exception as e:
                os.write(w, str(e).encode()[:2000])
            signal.pause()
            os._exit(0)
        os.close(w)
        children.append((pid, r))
    for pid, r in children:
        said = os.read(r, 4096).decode(errors='replace'); os.close(r)
        os.kill(pid, signal.SIGKILL); os.waitpid(pid, 0)
        if said != 'ready':
            print('FAIL round %d: the client could not create and start: %s' % (done, said)); sys.exit(1)
        done += 1
print('churned', done)
"""#

    @Test func killedClientsLeaveNoContextsAndNoMemoryBehind() async throws {
        let rounds = StressLevel.churnRounds
        let reproduce = "reproduce: LOCALAUTH_CHURN_ROUNDS=\(rounds) swift test --filter ClientChurnTests"
        // 10 clients × 3 contexts live at a time; any leak soon hits max_contexts and fails a client.
        try await withDaemon(configuration: "max_contexts = 40\nroot_reserved_contexts = 0\n") { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            let pid = try #require(try await client.connection.credentials(of: LocalAuthBusNames.busName).pid)
            let warmUp = try await runTool("/usr/bin/python3", ["-c", Self.script, bus.address, String(max(rounds / 4, 10)), "10"], timeout: .seconds(120))
            #expect(warmUp.status == 0, "warm-up: \(warmUp.output); \(reproduce)")
            let before = Self.residentKiB(pid)
            let churn = try await runTool("/usr/bin/python3", ["-c", Self.script, bus.address, String(rounds), "10"],
                                          timeout: .seconds(StressLevel.isStress ? 900 : 120))
            #expect(churn.status == 0 && churn.output.contains("churned \(rounds)"), "\(churn.output); \(reproduce)")
            let after = Self.residentKiB(pid)
            #expect(after - before < 2048, "RSS grew from \(before) KiB to \(after) KiB over \(rounds) vanished clients; \(reproduce)")

            // Every slot is free again (the daemon frees a leaver's contexts once it sees it go,
            // so a few bounded retries of the last creations), and so is the sensor.
            var created = 0
            var holders: [Client] = []
            for _ in 0..<200 where created < 40 {
                if holders.last.map({ _ in created % 32 == 0 }) ?? true { holders.append(try await Client(bus)) }
                if await errorName({ _ = try await holders.last!.createContext() }) == nil { created += 1 } else { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(created == 40, "only \(created) of max_contexts = 40 could be created after the churn: contexts left behind; \(reproduce)")
            for holder in holders { holder.connection.close() }
            // The daemon frees the holders' contexts once it sees them leave: bounded retries again.
            var freed: String?
            for _ in 0..<200 where freed == nil {
                do { freed = try await client.createContext() } catch { try await Task.sleep(for: .milliseconds(10)) }
            }
            let context = try #require(freed, "the holders' contexts were not freed after they left; \(reproduce)")
            try await client.simulator("Touch", [.string("right-index-finger")])
            _ = try await client.context(context, "EvaluatePolicy", [.uint32(1), .string("after the churn")])
            #expect(try await client.userState()["BiometryFailures"] == .uint32(0), "vanished clients' evaluations were counted; \(reproduce)")
        }
    }

    static func residentKiB(_ pid: UInt32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
}
