// SPDX-License-Identifier: Apache-2.0
/// An instant on one boot's monotonic clock: seconds since that boot, and which boot.
///
/// Readings of different boots cannot be compared; the ledger treats a delay saved in another boot
/// as starting again when it is loaded (see ``UserLedger/validated(at:schedule:)``).
public struct BootTime: Hashable, Sendable, Codable {
    /// The kernel's boot id (`/proc/sys/kernel/random/boot_id`, or `%b` handed over by the unit),
    /// never one made up: a made-up id would restart running delays whenever the daemon restarts.
    public var boot: String
    public var seconds: Double

    public init(boot: String, seconds: Double) {
        self.boot = boot
        self.seconds = seconds
    }
}

extension BootTime {
    /// The instant `seconds` later on the same boot's clock.
    public func advanced(by seconds: Double) -> BootTime {
        BootTime(boot: boot, seconds: self.seconds + seconds)
    }

    /// Seconds from `now` until this instant; 0 once it is reached. A reading of another boot
    /// counts as past it: the boot this instant belongs to is over.
    public func remaining(from now: BootTime) -> Double {
        now.boot == boot ? max(0, seconds - now.seconds) : 0
    }
}
