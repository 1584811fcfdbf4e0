// SPDX-License-Identifier: Apache-2.0
/// A wall-clock instant in seconds since 1970-01-01 UTC.
///
/// Wall time, not monotonic time: lockout deadlines and the reuse window must survive restarts.
public struct UnixTime: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var seconds: Double

    public init(_ seconds: Double) { self.seconds = seconds }

    public init(from decoder: any Decoder) throws {
        seconds = try decoder.singleValueContainer().decode(Double.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(seconds)
    }

    public static func < (lhs: UnixTime, rhs: UnixTime) -> Bool { lhs.seconds < rhs.seconds }
    public static func + (lhs: UnixTime, rhs: Double) -> UnixTime { UnixTime(lhs.seconds + rhs) }
    public static func - (lhs: UnixTime, rhs: UnixTime) -> Double { lhs.seconds - rhs.seconds }

    public var description: String { "\(seconds)" }
}
