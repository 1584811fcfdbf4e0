// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import Synchronization

/// A clock that moves only when a test advances it: a wall clock and a boot clock.
public final class FakeClock: WallClock {
    private struct Readings {
        var wall: Double
        var boot = 1
        var uptime: Double = 1000
    }

    private let current: Mutex<Readings>

    public init(_ start: Double = 1_800_000_000) {
        current = Mutex(Readings(wall: start))
    }

    public func now() -> UnixTime { UnixTime(current.withLock { $0.wall }) }

    public func uptime() -> BootTime {
        current.withLock { BootTime(boot: "fake-boot-\($0.boot)", seconds: $0.uptime) }
    }

    /// Time passes: both clocks move by `seconds`.
    public func advance(by seconds: Double) {
        current.withLock { $0.wall += seconds; $0.uptime += seconds }
    }

    /// Someone sets the wall clock (date -s, an NTP step): it moves by `seconds` while no time passes.
    public func setWallClock(by seconds: Double) {
        current.withLock { $0.wall += seconds }
    }

    /// The machine restarts: a new boot whose clock starts again; the wall clock goes on.
    public func reboot() {
        current.withLock { $0.boot += 1; $0.uptime = 5 }
    }
}
