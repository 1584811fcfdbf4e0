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
    /// time passed, so it counts none (``validated(at:longest:)`` restarts such delays on load).
    public func remaining(at now: BootTime) -> Double {
        let elapsed = now.boot == started.boot ? max(0, now.seconds - started.seconds) : 0
        return max(0, seconds - elapsed)
    }

    /// The delay as loaded from storage: one saved in another boot starts again for its full
    /// length (the time that passed while the machine was off cannot be trusted); one saved in
    /// this boot goes on where it was. Throws `corrupt` for a length outside 0…`longest` or a
    /// start that is no boot-clock time of this boot.
    func validated(at now: ClockReading, longest: Double) throws(StateStoreError) -> PasscodeDelay {
        guard seconds.isFinite, (0...longest).contains(seconds) else {
            throw StateStoreError(.corrupt, "a passcode delay of \(seconds) s is outside 0…\(longest) s")
        }
        guard started.seconds.isFinite, started.seconds >= 0 else {
            throw StateStoreError(.corrupt, "the passcode delay's start \(started.seconds) is not a boot-clock time")
        }
        guard started.boot == now.uptime.boot else { return PasscodeDelay(started: now.uptime, seconds: seconds) }
        guard started.seconds <= now.uptime.seconds else {
            throw StateStoreError(.corrupt, "the passcode delay starts \(started.seconds - now.uptime.seconds) s in this boot's future")
        }
        return self
    }
}
