/// An instant on one boot's monotonic clock: seconds since that boot, and which boot.
///
/// Readings of different boots cannot be compared; the ledger treats a delay saved in another boot
/// as starting again when it is loaded (see ``UserLedger/validated(at:schedule:)``).
public struct BootTime: Hashable, Sendable, Codable {
    /// The kernel's boot id (`/proc/sys/kernel/random/boot_id`).
    public var boot: String
    public var seconds: Double

    public init(boot: String, seconds: Double) {
        self.boot = boot
        self.seconds = seconds
    }
}
