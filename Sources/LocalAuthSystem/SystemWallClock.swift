#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import LocalAuthCore

/// The machine's real-time clock.
public struct SystemWallClock: WallClock {
    public init() {}

    public func now() -> UnixTime {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UnixTime(Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }
}
