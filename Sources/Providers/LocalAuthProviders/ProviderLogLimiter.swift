// SPDX-License-Identifier: Apache-2.0
/// A token bucket for the log lines one provider's reports cause, so a provider that floods
/// `ReportAvailability` or `ReportAttempt` cannot flood the journal: ``burst`` lines at once,
/// then one per ``refill``. Lines over the limit are counted, not logged; the next line admitted
/// says how many were dropped before it.
///
/// A value with no clock of its own: the caller passes the time, so tests need no sleeping.
public struct ProviderLogLimiter: Sendable {
    /// Lines logged back to back before the limit applies.
    public static let defaultBurst = 10
    /// How long the bucket takes to earn one more line.
    public static let defaultRefill: Duration = .seconds(1)

    /// What to do with one line.
    public enum Admission: Sendable, Equatable {
        /// Log it; first say that `suppressedBefore` lines were dropped, when that is above 0.
        case log(suppressedBefore: Int)
        /// Drop it (it is counted).
        case suppress
    }

    public let burst: Int
    public let refill: Duration
    private var tokens: Double
    private var last: ContinuousClock.Instant?
    private var suppressed = 0

    public init(burst: Int = defaultBurst, refill: Duration = defaultRefill) {
        precondition(burst > 0 && refill > .zero, "a log limiter needs a burst and a refill time above 0")
        self.burst = burst
        self.refill = refill
        tokens = Double(burst)
    }

    /// Takes a line at `now` (monotonic, never earlier than the previous call's).
    public mutating func admit(at now: ContinuousClock.Instant) -> Admission {
        if let last {
            tokens = min(Double(burst), tokens + (now - last) / refill)
        }
        last = now
        guard tokens >= 1 else {
            suppressed += 1
            return .suppress
        }
        tokens -= 1
        defer { suppressed = 0 }
        return .log(suppressedBefore: suppressed)
    }
}
