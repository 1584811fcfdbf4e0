// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// An idle daemon sleeps: none of its threads wakes, so it costs no power while nobody calls.
///
/// A timer of the daemon's (a poll timeout of the bus loop, a periodic check) fails this, and so
/// does any use of libdispatch's global queues: the first worker thread they start arms
/// libdispatch's pool monitor, a 1 s timer never cancelled (`DaemonExecutors` says how the daemon
/// keeps off them). The test first runs a call that touches every part of a request path.
@Suite("localauthd idle wake-ups", .timeLimit(.minutes(1)))
struct IdleWakeUpTests {
    /// Voluntary context switches (a thread going back to sleep) by thread id and name.
    static func switches(of pid: UInt32) -> [String: (name: String, count: Int)] {
        var result: [String: (name: String, count: Int)] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            var name = "", count = 0
            for line in status.split(separator: "\n") {
                if line.hasPrefix("Name:") { name = line.dropFirst(5).trimmingCharacters(in: .whitespaces) }
                if line.hasPrefix("voluntary_ctxt_switches:") { count = Int(line.split(separator: "\t").last ?? "") ?? 0 }
            }
            result[task] = (name, count)
        }
        return result
    }

    @Test(arguments: [[], ["--idle-exit", "3600"]])
    func anIdleDaemonsOwnThreadsDoNotWake(arguments: [String]) async throws {
        try await withPrivateBus { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let daemon = try DaemonUnderTest(bus: bus)
            defer { daemon.kill() }
            try await daemon.start(watcher: watcher, arguments: arguments)
            let pid = try #require(try await watcher.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "GetConnectionUnixProcessID", arguments: [.string(LocalAuthBusNames.busName)]).first?.uint32)
            _ = try await watcher.call(destination: LocalAuthBusNames.busName, path: LocalAuthBusNames.managerPath,
                                       interface: "org.freedesktop.DBus.Peer", member: "Ping")
            let client = try await Client(bus)
            defer { client.connection.close() }
            _ = try await client.context(try await client.createContext(), "Invalidate")
            // The end of the start (READY=1, the log line) runs on the loop after the name is owned,
            // and the idle-exit unit looks once a second after its start: measured from the first
            // 1.2 s in which no thread woke.
            func allSwitches() -> Int { Self.switches(of: pid).values.reduce(0) { $0 + $1.count } }
            var settled = false
            for _ in 0..<10 where !settled {
                let before = allSwitches()
                try await Task.sleep(for: .milliseconds(1200))
                settled = allSwitches() == before
            }
            try #require(settled, "the daemon never slept for 1.2 s: \(Self.switches(of: pid))")

            let idleSeconds = 3
            let before = Self.switches(of: pid)
            try await Task.sleep(for: .seconds(idleSeconds))  // the measurement itself: nothing to wait for
            let after = Self.switches(of: pid)
            let woke = after.compactMap { task, now -> (String, Int)? in
                let delta = now.count - (before[task]?.count ?? 0)
                return delta > 0 ? ("\(now.name)/\(task)", delta) : nil
            }
            #expect(woke.isEmpty, "the idle daemon woke (thread/tid: count): \(woke)")
        }
    }
}
