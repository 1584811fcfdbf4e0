import LocalAuthCore
import LocalAuthSystem
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("System wall clock", .timeLimit(.minutes(1)))
struct SystemWallClockTests {
    static func realtime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    @Test func nowIsTheRealTime() {
        let before = Self.realtime()
        let now = SystemWallClock().now().seconds
        let after = Self.realtime()
        let seconds = Double(time(nil))
        #expect(before - 0.001 <= now && now <= after + 0.001)
        #expect(abs(now - seconds) < 1)
        #expect(now > 1_700_000_000, "seconds since 1970, not since boot")
    }
}
