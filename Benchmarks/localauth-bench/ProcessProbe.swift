// SPDX-License-Identifier: Apache-2.0
import Foundation

/// What `/proc` says about one running process: resident memory and CPU time consumed.
struct ProcessProbe: Sendable {
    let pid: Int32

    /// A `kB` line of `/proc/PID/status` (VmRSS, RssAnon, RssFile), in KiB.
    func statusKiB(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    var residentKiB: Int { statusKiB("VmRSS") }

    /// The CPU time the process has used so far; two readings give the time between them
    /// (``CPUReading/seconds(since:)``).
    var cpu: CPUReading {
        var threads: [Int: UInt64] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            guard let id = Int(task),
                  let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
                  let first = text.split(separator: " ").first, let nanoseconds = UInt64(first) else { continue }
            threads[id] = nanoseconds
        }
        var ticks = 0.0
        if let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = text.lastIndex(of: ")") {
            // Fields after the command name, which may contain spaces; field 3 (state) comes first.
            let fields = text[text.index(after: end)...].split(separator: " ")
            ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        }
        return CPUReading(threads: threads, ticks: ticks)
    }

    /// Context switches of every thread so far (`/proc/PID/task/*/status`), by thread name: each
    /// voluntary one is the thread going to sleep, so over an idle stretch they count wake-ups.
    func contextSwitchesByThread() -> [(thread: String, voluntary: Int, involuntary: Int)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task in
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { return nil }
            var name = task, voluntary = 0, involuntary = 0
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: "\t", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2 else { continue }
                switch parts[0] {
                case "Name:": name = parts[1]
                case "voluntary_ctxt_switches:": voluntary = Int(parts[1]) ?? 0
                case "nonvoluntary_ctxt_switches:": involuntary = Int(parts[1]) ?? 0
                default: break
                }
            }
            return ("\(name)/\(task)", voluntary, involuntary)
        }
    }

    /// The shared objects mapped into the process with their resident KiB, largest first
    /// (from `/proc/PID/smaps`), to name what the memory goes to.
    func residentByMapping() -> [(name: String, kib: Int)] {
        // /proc files report size 0; read them to the end rather than by their size.
        guard let data = FileHandle(forReadingAtPath: "/proc/\(pid)/smaps")?.readDataToEndOfFile() else { return [] }
        let text = String(decoding: data, as: UTF8.self)
        var totals: [String: Int] = [:]
        var current = "[anonymous]"
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = parts.first, first.contains("-"), parts.count >= 5 {
                current = parts.count >= 6 ? String(parts[5]) : "[anonymous]"
                if current.hasPrefix("/") { current = URL(fileURLWithPath: current).lastPathComponent }
            } else if parts.first == "Rss:", parts.count >= 2 {
                totals[current, default: 0] += Int(parts[1]) ?? 0
            }
        }
        return totals.map { ($0.key, $0.value) }.sorted { $0.kib > $1.kib }
    }
}

/// The CPU time of one process at one moment, in two forms.
///
/// `/proc/PID/stat` counts user and system time in clock ticks (10 ms): over the 1 000 cycles of a
/// run (~150 ms of the floor's CPU) a tick either way moved the floor's figure by 7 %, and a ratio
/// of two such figures by up to 0.2×. The scheduler's run time of each thread
/// (`/proc/PID/task/TID/schedstat`) is in nanoseconds, but a thread that exits takes its own with it.
struct CPUReading: Sendable {
    /// Every live thread's run time so far, in nanoseconds, by thread id.
    let threads: [Int: UInt64]
    /// User plus system time so far, in clock ticks, exited threads' included.
    let ticks: Double

    /// Seconds of CPU from `earlier` to this reading: from the threads' run times when every
    /// thread of `earlier` still runs (threads started since count whole), otherwise in ticks.
    func seconds(since earlier: CPUReading) -> Double {
        var nanoseconds: UInt64 = 0
        for (thread, now) in threads {
            let before = earlier.threads[thread] ?? 0
            // Less than before: the id was reused by a thread started since.
            guard now >= before else { return tickSeconds(since: earlier) }
            nanoseconds += now - before
        }
        guard !threads.isEmpty, earlier.threads.keys.allSatisfy({ threads[$0] != nil }) else { return tickSeconds(since: earlier) }
        return Double(nanoseconds) / 1e9
    }

    private func tickSeconds(since earlier: CPUReading) -> Double {
        (ticks - earlier.ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
