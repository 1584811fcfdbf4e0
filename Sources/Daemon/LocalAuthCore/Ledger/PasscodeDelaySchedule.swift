// SPDX-License-Identifier: Apache-2.0
/// Apple's escalating passcode delays: after the Nth consecutive wrong passcode the next try must
/// wait `delays[N-1]` seconds (the last entry repeats), and at `maxFailures` the passcode is locked
/// until an administrator resets it.
public struct PasscodeDelaySchedule: Sendable, Hashable {
    public var delays: [Double]
    public var maxFailures: Int

    public init(delays: [Double], maxFailures: Int) {
        self.delays = delays
        self.maxFailures = maxFailures
    }

    public enum Consequence: Sendable, Hashable {
        case none
        case delay(seconds: Double)
        case permanentLock
    }

    /// The longest delay the schedule imposes; 0 for none.
    public var longestDelay: Double { max(0, delays.max() ?? 0) }

    /// What the `failures`-th consecutive failure brings.
    public func consequence(ofFailure failures: Int) -> Consequence {
        if failures >= maxFailures { return .permanentLock }
        guard failures >= 1, let last = delays.last else { return .none }
        let seconds = failures <= delays.count ? delays[failures - 1] : last
        return seconds > 0 ? .delay(seconds: seconds) : .none
    }
}
