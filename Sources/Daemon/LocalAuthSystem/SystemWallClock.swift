// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import LocalAuthCore

/// The machine's real-time clock, and its boot clock (CLOCK_BOOTTIME: monotonic, counts suspend).
public struct SystemWallClock: WallClock {
    /// This boot's id (``BootID``).
    private let bootID: String

    /// Refuses to make a clock without a boot id (``BootID/current(environment:kernelFile:)``).
    public init() throws(BootID.Unavailable) {
        bootID = try BootID.current()
    }

    public func now() -> UnixTime {
        UnixTime(Self.read(CLOCK_REALTIME))
    }

    public func uptime() -> BootTime {
        BootTime(boot: bootID, seconds: Self.read(CLOCK_BOOTTIME))
    }

    private static func read(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
