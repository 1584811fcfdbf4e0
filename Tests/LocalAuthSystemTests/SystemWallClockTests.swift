// SPDX-License-Identifier: Apache-2.0
import Foundation
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

    @Test func nowIsTheRealTime() throws {
        let secondsBefore = Double(time(nil))
        let before = Self.realtime()
        let now = try SystemWallClock().now().seconds
        let after = Self.realtime()
        let secondsAfter = Double(time(nil))
        #expect(before - 0.001 <= now && now <= after + 0.001)
        // time(2) truncates to whole seconds: now lies within the seconds read around it.
        #expect(secondsBefore <= now && now < secondsAfter + 1)
        #expect(now > 1_700_000_000, "seconds since 1970, not since boot")
    }

    @Test func uptimeIsThisBootsClockAndSettingTheDateCannotMoveIt() throws {
        var boottime = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boottime)
        let first = try SystemWallClock().uptime(), second = try SystemWallClock().uptime()
        #expect(abs(first.seconds - (Double(boottime.tv_sec) + Double(boottime.tv_nsec) / 1e9)) < 5)
        #expect(second.seconds >= first.seconds)
        let bootID = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(first.boot == bootID && second.boot == bootID, "one boot id for every daemon start in this boot")
    }
}
