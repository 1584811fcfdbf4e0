// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The figures of one `make bench` run: printed as a table, written as JSON and spliced into
/// BENCHMARKS.md between the `bench:begin` and `bench:end` markers.
struct BenchmarkReport: Codable, Sendable {
    struct Figure: Codable, Sendable {
        var name: String
        var value: Double
        var unit: String
        var goal: String
        /// Spread over the runs, e.g. `min 41 / max 48`.
        var spread: String
    }

    /// One issue-31 target: the daemon's figure beside the no-work C floor's, and their ratio, each
    /// as median and range over the runs (ratios taken within each run).
    struct Target: Codable, Sendable {
        var name: String
        var unit: String
        var daemon: Summary
        /// Nil where the floor has no such figure (a call's wait, a failed cycle).
        var floor: Summary?
        /// Nil where a ratio means nothing (a floor of zero wake-ups).
        var ratio: Summary?
        var goal: String
        /// Whether the run's medians meet the goal.
        var met: Bool
    }

    struct Summary: Codable, Sendable {
        var median: Double
        var minimum: Double
        var maximum: Double
        var runs: Int

        init(_ sample: Sample) {
            (median, minimum, maximum, runs) = (sample.median, sample.minimum, sample.maximum, sample.values.count)
        }

        func formatted(_ decimals: Int) -> String {
            "\(BenchmarkReport.format(median, decimals)) (\(BenchmarkReport.format(minimum, decimals)) – \(BenchmarkReport.format(maximum, decimals)))"
        }
    }

    var date: String
    var machine: String
    var runs: Int
    var figures: [Figure] = []
    var targets: [Target] = []
    /// The largest resident mappings of the idle daemon, to show where its memory goes.
    var idleMemoryByMapping: [String] = []

    mutating func add(_ name: String, _ sample: Sample, _ unit: String, goal: String = "", decimals: Int = 1) {
        figures.append(Figure(name: name, value: sample.median, unit: unit, goal: goal,
                              spread: "\(Self.format(sample.minimum, decimals)) – \(Self.format(sample.maximum, decimals))"))
    }

    mutating func target(_ name: String, _ unit: String, daemon: Sample, floor: Sample, ratio: Sample?, goal: String, met: Bool) {
        targets.append(Target(name: name, unit: unit, daemon: Summary(daemon), floor: floor.values.isEmpty ? nil : Summary(floor), ratio: ratio.map(Summary.init), goal: goal, met: met))
    }

    /// The issue-31 targets: median (min – max) of each side and of the ratio, with the runs.
    var targetTable: String {
        var lines = ["| target | localauthd | C floor | ratio | runs | goal | met |", "| --- | ---: | ---: | ---: | ---: | --- | --- |"]
        for target in targets {
            let decimals = target.daemon.median >= 100 ? 0 : (target.daemon.median >= 10 ? 1 : 2)
            lines.append("| \(target.name) (\(target.unit)) | \(target.daemon.formatted(decimals)) | \(target.floor?.formatted(decimals) ?? "—") | "
                         + "\(target.ratio.map { $0.formatted(2) + " ×" } ?? "—") | \(target.daemon.runs) | \(target.goal) | \(target.met ? "**met**" : "not met") |")
        }
        return lines.joined(separator: "\n")
    }

    static func format(_ value: Double, _ decimals: Int = 1) -> String {
        String(format: "%.\(decimals)f", value)
    }

    var markdownTable: String {
        var lines = ["| measurement (median of \(runs) runs) | value | unit | runs: min – max | goal |", "| --- | ---: | --- | --- | --- |"]
        for figure in figures {
            let decimals = figure.value >= 100 ? 0 : (figure.value >= 10 ? 1 : 2)
            lines.append("| \(figure.name) | \(Self.format(figure.value, decimals)) | \(figure.unit) | \(figure.spread) | \(figure.goal) |")
        }
        return lines.joined(separator: "\n")
    }

    var markdown: String {
        """
        Measured \(date) on \(machine); \(runs) runs per figure, ratios taken within each run.

        Issue 31's targets, each as median (min – max) over the runs:

        \(targetTable)

        \(markdownTable)

        Largest resident mappings of the idle daemon (KiB, `/proc/PID/smaps`):
        \(idleMemoryByMapping.map { "`\($0)`" }.joined(separator: ", "))
        """
    }

    func writeJSON(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        // A figure with no runs (nan) must not cost the whole run's results.
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }

    /// Replaces the text between the markers in `path`, or appends a marked section if missing.
    func splice(into path: String) throws {
        let begin = "<!-- bench:begin (written by make bench) -->", end = "<!-- bench:end -->"
        let existing = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "# Benchmarks\n"
        let section = "\(begin)\n\(markdown)\n\(end)"
        let updated: String
        if let start = existing.range(of: begin), let stop = existing.range(of: end), start.upperBound <= stop.lowerBound {
            updated = existing.replacingCharacters(in: start.lowerBound..<stop.upperBound, with: section)
        } else {
            updated = existing + "\n" + section + "\n"
        }
        try updated.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
