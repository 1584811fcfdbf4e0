// SPDX-License-Identifier: Apache-2.0
import LocalAuthProviders
import Testing

/// The provider log limiter with a made-up clock (instants are computed, nothing sleeps).
@Suite("Provider log limiter")
struct ProviderLogLimiterTests {
    let start = ContinuousClock.now

    @Test func aFloodingProviderGetsTenLinesAtOnceThenOneASecond() {
        var limiter = ProviderLogLimiter()
        let burst = (0..<4000).map { _ in limiter.admit(at: start) }
        #expect(burst.prefix(10).allSatisfy { $0 == .log(suppressedBefore: 0) })
        #expect(burst.dropFirst(10).allSatisfy { $0 == .suppress }, "4000 reports at once: 10 lines")
        #expect(limiter.admit(at: start + .milliseconds(500)) == .suppress, "half a second earns no line")
        #expect(limiter.admit(at: start + .seconds(1)) == .log(suppressedBefore: 3991), "the line after says how many were dropped")
        #expect(limiter.admit(at: start + .seconds(1)) == .suppress)
        #expect(limiter.admit(at: start + .seconds(2)) == .log(suppressedBefore: 1))
    }

    @Test func aQuietProviderEarnsItsBurstBackButNoMore() {
        var limiter = ProviderLogLimiter(burst: 3, refill: .seconds(1))
        for _ in 0..<3 { #expect(limiter.admit(at: start) == .log(suppressedBefore: 0)) }
        #expect(limiter.admit(at: start) == .suppress)
        let later = start + .seconds(3600)
        for _ in 0..<3 { _ = limiter.admit(at: later) }
        #expect(limiter.admit(at: later) == .suppress, "an hour of silence earns the burst (3), not 3600 lines")
    }

    @Test func aProviderThatReportsSlowlyIsNeverSuppressed() {
        var limiter = ProviderLogLimiter()
        for second in 0..<100 {
            #expect(limiter.admit(at: start + .seconds(second)) == .log(suppressedBefore: 0))
        }
    }
}
