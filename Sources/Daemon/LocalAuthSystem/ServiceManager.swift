// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The service manager (systemd) as the daemon talks to it: state changes and the watchdog, by the
/// protocol `sd_notify(3)` and `sd_watchdog_enabled(3)` describe, spoken directly (no libsystemd).
/// Every call is a no-op when not started by a service manager (no `NOTIFY_SOCKET`).
public enum ServiceManager {
    /// Sends `state` (`READY=1`, `STATUS=…`, `WATCHDOG=1`, …; newline-separated assignments) to
    /// `$NOTIFY_SOCKET`.
    public static func notify(_ state: String) {
        guard let socket = getenv("NOTIFY_SOCKET") else { return }
        _ = notify(state, socket: String(cString: socket))
    }

    /// One datagram holding `state` to `socket` (a path, or `@name` in the abstract namespace).
    /// False when `socket` is not such an address or the datagram could not be sent.
    static func notify(_ state: String, socket: String) -> Bool {
        guard let address = UnixSocketAddress(socket) else { return false }
        return address.sendDatagram(Array(state.utf8))
    }

    /// How often to ping the watchdog: half of `WATCHDOG_USEC`, or nil when no watchdog is set
    /// for this process.
    public static var watchdogInterval: Duration? {
        watchdogInterval(microseconds: getenv("WATCHDOG_USEC").map { String(cString: $0) },
                         pid: getenv("WATCHDOG_PID").map { String(cString: $0) }, processID: getpid())
    }

    /// Half of `microseconds` when it is a watchdog timeout for process `processID`, as
    /// `sd_watchdog_enabled` decides: a decimal count other than 0 and infinity (2⁶⁴−1), and
    /// `pid`, when set, a valid pid equal to `processID` (systemd sets it when the service's main
    /// process is not the one it started; then a child must not take the pings over).
    static func watchdogInterval(microseconds: String?, pid: String?, processID: pid_t) -> Duration? {
        guard let microseconds, let timeout = decimal(microseconds), timeout != 0, timeout != .max else { return nil }
        if let pid {
            guard let target = decimal(pid), target > 0, target <= UInt64(Int32.max), pid_t(target) == processID else { return nil }
        }
        return .microseconds(Int64(timeout / 2))
    }

    /// A decimal number after optional leading whitespace, nothing after it; nil on overflow.
    private static func decimal(_ text: String) -> UInt64? {
        let digits = text.utf8.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return UInt64(String(decoding: digits, as: UTF8.self))
    }

    /// `RELOADING=1` with the monotonic timestamp newer systemd versions ask for.
    public static func notifyReloading() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let microseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        notify("RELOADING=1\nMONOTONIC_USEC=\(microseconds)")
    }
}
