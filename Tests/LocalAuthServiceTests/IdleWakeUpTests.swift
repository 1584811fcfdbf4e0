// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// An idle daemon sleeps: its own threads do not wake, so it costs no power while nobody calls.
///
/// What still wakes it is libdispatch's worker-pool monitor (`_dispatch_workq_monitor_pools`, a
/// 1 s timer on the manager queue that swift-corelibs-libdispatch arms at the first use of a
/// global queue and never cancels; see BENCHMARKS.md, issue 31): at most one wake-up a second,
/// on libdispatch's own thread. A timer of the daemon's (a poll timeout of the bus loop, a
/// periodic check) wakes the loop thread or adds to that count, and fails this.
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
            // The end of the start (READY=1, the log line) runs on the loop after the name is owned,
            // and the idle-exit unit looks once a second after its start: measured from the first
            // 1.2 s in which the loop slept throughout.
            func loopSwitches() -> Int { Self.switches(of: pid).values.filter { $0.name == "dbus-loop" }.reduce(0) { $0 + $1.count } }
            var settled = false
            for _ in 0..<10 where !settled {
                let before = loopSwitches()
                try await Task.sleep(for: .milliseconds(1200))
                settled = loopSwitches() == before
            }
            try #require(settled, "the bus loop never slept for 1.2 s")

            let idleSeconds = 3
            let before = Self.switches(of: pid)
            try await Task.sleep(for: .seconds(idleSeconds))  // the measurement itself: nothing to wait for
            let after = Self.switches(of: pid)
            let woke = after.compactMap { task, now -> (String, Int)? in
                let delta = now.count - (before[task]?.count ?? 0)
                return delta > 0 ? ("\(now.name)/\(task)", delta) : nil
            }
            let loop = woke.filter { $0.0.hasPrefix("dbus-loop") || $0.0.hasPrefix("localauthd/\(pid)") }
            #expect(loop.isEmpty, "the bus loop or the main thread woke while idle: \(woke)")
            #expect(woke.reduce(0) { $0 + $1.1 } <= idleSeconds + 1, "more than libdispatch's one wake-up a second: \(woke)")
        }
    }
}
