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

    /// User plus system CPU time so far, in seconds (`/proc/PID/stat` fields 14 and 15).
    var cpuSeconds: Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = text.lastIndex(of: ")") else { return 0 }
        // Fields after the command name, which may contain spaces; field 3 (state) comes first.
        let fields = text[text.index(after: end)...].split(separator: " ")
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
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
