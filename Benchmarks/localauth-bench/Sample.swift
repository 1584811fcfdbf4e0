// SPDX-License-Identifier: Apache-2.0
/// Repeated measurements of one quantity; the median is what gets reported, since this machine is
/// noisy and the median ignores the odd slow run.
struct Sample: Sendable {
    private(set) var values: [Double] = []

    mutating func add(_ value: Double) { values.append(value) }

    var median: Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Each run's value less `other`'s value in the same run.
    func minus(_ other: Sample) -> Sample {
        var difference = Sample()
        for (value, subtrahend) in zip(values, other.values) { difference.add(value - subtrahend) }
        return difference
    }

    var minimum: Double { values.min() ?? .nan }
    var maximum: Double { values.max() ?? .nan }
}
