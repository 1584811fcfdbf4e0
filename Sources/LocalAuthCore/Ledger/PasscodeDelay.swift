// SPDX-License-Identifier: Apache-2.0
/// A running passcode delay, measured on the boot clock so that setting the date cannot shorten it.
public struct PasscodeDelay: Codable, Sendable, Hashable {
    /// When the failure that started it was counted.
    public var started: BootTime
    /// Its full length.
    public var seconds: Double

    public init(started: BootTime, seconds: Double) {
        self.started = started
        self.seconds = seconds
    }

    /// Seconds still to wait at `now`; 0 once over. A reading of another boot cannot tell how much
    /// time passed, so it counts none (``UserLedger/validated(at:schedule:)`` restarts such delays on load).
    public func remaining(at now: BootTime) -> Double {
        let elapsed = now.boot == started.boot ? max(0, now.seconds - started.seconds) : 0
        return max(0, seconds - elapsed)
    }
}
