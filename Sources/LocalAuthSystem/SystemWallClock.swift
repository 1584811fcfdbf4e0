// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import LocalAuthCore

/// The machine's real-time clock, and its boot clock (CLOCK_BOOTTIME: monotonic, counts suspend).
public struct SystemWallClock: WallClock {
    /// This boot's id; a daemon that cannot read it makes one up, so that every start counts as a
    /// new boot and running delays start again (the safe side).
    private let bootID: String

    public init() {
        bootID = Self.readBootID() ?? "unknown-\(getpid())-\(Self.read(CLOCK_REALTIME))"
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

    private static func readBootID() -> String? {
        guard let file = fopen("/proc/sys/kernel/random/boot_id", "re") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let id = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .filter { $0.isHexDigit || $0 == "-" }
        return id.isEmpty ? nil : id
    }
}
