// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import CSystemd

/// The service manager (systemd) as the daemon talks to it: `sd_notify` state changes and the
/// watchdog. Every call is a no-op when not started by a service manager (no `NOTIFY_SOCKET`).
public enum ServiceManager {
    /// Sends `state` (`READY=1`, `STATUS=…`, `WATCHDOG=1`, …; newline-separated assignments).
    public static func notify(_ state: String) {
        _ = sd_notify(0, state)
    }

    /// How often to ping the watchdog: half of `WATCHDOG_USEC`, or nil when no watchdog is set
    /// for this process.
    public static var watchdogInterval: Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(microseconds / 2))
    }

    /// `RELOADING=1` with the monotonic timestamp newer systemd versions ask for.
    public static func notifyReloading() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let microseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        notify("RELOADING=1\nMONOTONIC_USEC=\(microseconds)")
    }
}
