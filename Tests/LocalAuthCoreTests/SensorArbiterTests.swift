// SPDX-License-Identifier: Apache-2.0
@testable import LocalAuthCore
import Testing

/// The sensor sharing rule as a value: no engine, no clock but the instants passed in.
@Suite("SensorArbiter")
struct SensorArbiterTests {
    let t0 = BootTime(boot: "test-boot", seconds: 1_000)
    static let mallory: UInt32 = 65534, alice: UInt32 = 1000, carol: UInt32 = 1002

    func id(_ number: UInt64) -> ContextID { ContextID(number) }

    @Test func theFirstClaimHoldsAndANewcomerOfTheSameStandingWaits() {
        var arbiter = SensorArbiter()
        arbiter.claim(id(1), user: Self.mallory, standing: .unknown, at: t0)
        arbiter.claim(id(2), user: Self.alice, standing: .unknown, at: t0)
        #expect(arbiter.holder == id(1))
        arbiter.release(id(2), at: t0)
        #expect(arbiter.holder == id(1))
        arbiter.release(id(1), at: t0)
        #expect(arbiter.holder == nil)
        #expect(arbiter.claimants.isEmpty)
    }

    @Test func aLoneClaimHoldsWithoutAStandingAndIsRankedByTheOneGivenLater() {
        var arbiter = SensorArbiter()
        _ = arbiter.apply([.claim(id(1), user: Self.mallory, standing: nil)], at: t0, turnLength: 0)
        #expect(arbiter.holder == id(1))
        #expect(arbiter.claimsWithoutStanding == [id(1)])
        let actions = arbiter.apply([.standing(id(1), .background), .standing(id(9), .foreground),
                                     .claim(id(2), user: Self.alice, standing: .unknown)], at: t0, turnLength: 0)
        #expect(arbiter.claimsWithoutStanding.isEmpty)
        #expect(arbiter.holder == id(2), "no session information beats the background standing given to the first")
        #expect(actions == [.disarm(id(1)), .arm(id(2))])
        _ = arbiter.apply([.standing(id(1), .foreground)], at: t0, turnLength: 0)
        #expect(arbiter.holder == id(2), "a standing is given once")
    }

    @Test func reArmingGoesToTheBackOfTheLine() {
        var arbiter = SensorArbiter()
        arbiter.claim(id(1), user: Self.mallory, standing: .unknown, at: t0)
        arbiter.claim(id(2), user: Self.mallory, standing: .unknown, at: t0)
        arbiter.claim(id(3), user: Self.alice, standing: .unknown, at: t0)
        for round in 0..<100 {
            // Mallory cancels whatever of hers holds and claims again, over and over.
            guard let holder = arbiter.holder, holder != id(3) else { break }
            arbiter.release(holder, at: t0)
            arbiter.claim(holder, user: Self.mallory, standing: .unknown, at: t0)
            #expect(round == 0)
        }
        #expect(arbiter.holder == id(3), "Alice holds after one of Mallory's turns")
    }

    @Test func eachUserHasOnePlaceAndItsClaimsGoInArrivalOrder() {
        var arbiter = SensorArbiter()
        arbiter.claim(id(1), user: Self.mallory, standing: .unknown, at: t0)
        arbiter.claim(id(2), user: Self.mallory, standing: .unknown, at: t0)
        arbiter.claim(id(3), user: Self.mallory, standing: .unknown, at: t0)
        arbiter.claim(id(4), user: Self.alice, standing: .unknown, at: t0)
        arbiter.claim(id(5), user: Self.carol, standing: .unknown, at: t0)
        var order: [ContextID] = []
        while let holder = arbiter.holder {
            order.append(holder)
            arbiter.release(holder, at: t0)
        }
        #expect(order == [id(1), id(4), id(5), id(2), id(3)])
    }

    @Test func aBetterStandingPreemptsAndThePreemptedClaimResumesFirst() {
        var arbiter = SensorArbiter()
        arbiter.claim(id(1), user: Self.mallory, standing: .background, at: t0)
        arbiter.claim(id(2), user: Self.carol, standing: .background, at: t0)
        arbiter.claim(id(3), user: Self.alice, standing: .unknown, at: t0)
        #expect(arbiter.holder == id(3))
        arbiter.claim(id(4), user: Self.alice, standing: .foreground, at: t0)
        #expect(arbiter.holder == id(4), "the user's own foreground claim goes before its other one")
        arbiter.release(id(4), at: t0)
        #expect(arbiter.holder == id(3))
        arbiter.release(id(3), at: t0)
        #expect(arbiter.holder == id(1), "Mallory was preempted, not sent to the back")
    }

    @Test func aWorseStandingNeverPreempts() {
        var arbiter = SensorArbiter()
        arbiter.claim(id(1), user: Self.alice, standing: .background, at: t0)
        arbiter.claim(id(2), user: Self.mallory, standing: .background, at: t0)
        arbiter.release(id(2), at: t0)
        arbiter.claim(id(2), user: Self.mallory, standing: .background, at: t0)
        #expect(arbiter.holder == id(1))
    }

    @Test func aTurnRunsOutOnlyWhileAnotherUserOfTheSameStandingWaits() {
        var arbiter = SensorArbiter()
        arbiter.claim(id(1), user: Self.mallory, standing: .unknown, at: t0)
        arbiter.claim(id(2), user: Self.mallory, standing: .unknown, at: t0)
        #expect(arbiter.turnDeadline(length: 10) == nil, "her own claims do not contest her turn")
        arbiter.claim(id(3), user: Self.alice, standing: .background, at: t0.advanced(by: 5))
        #expect(arbiter.turnDeadline(length: 10) == nil, "a worse standing does not contest it")
        arbiter.claim(id(4), user: Self.carol, standing: .unknown, at: t0.advanced(by: 50))
        #expect(arbiter.turnDeadline(length: 10) == t0.advanced(by: 60), "counted from when Carol began to wait")
        #expect(arbiter.turnDeadline(length: 0) == nil, "0 means no limit")
        arbiter.endTurn(ifDueAt: t0.advanced(by: 59), length: 10)
        #expect(arbiter.holder == id(1))
        arbiter.endTurn(ifDueAt: t0.advanced(by: 60), length: 10)
        #expect(arbiter.holder == id(4))
        #expect(arbiter.turnDeadline(length: 10) == t0.advanced(by: 70))
        arbiter.endTurn(ifDueAt: t0.advanced(by: 70), length: 10)
        #expect(arbiter.holder == id(1), "turns alternate")
    }

    @Test func releasingTheLastClaimOfAWaitingUserGivesUpItsPlace() {
        var arbiter = SensorArbiter()
        arbiter.claim(id(1), user: Self.carol, standing: .unknown, at: t0)
        arbiter.claim(id(2), user: Self.mallory, standing: .unknown, at: t0)
        arbiter.claim(id(3), user: Self.alice, standing: .unknown, at: t0)
        arbiter.release(id(2), at: t0)
        arbiter.claim(id(2), user: Self.mallory, standing: .unknown, at: t0)
        arbiter.release(id(1), at: t0)
        #expect(arbiter.holder == id(3))
        #expect(arbiter.contains(id(2)))
        #expect(Set(arbiter.claimants) == [id(2), id(3)])
    }

    // MARK: Events in, actions out

    @Test func aBatchOfClaimsArmsOnlyTheFinalHolder() {
        var arbiter = SensorArbiter()
        let actions = arbiter.apply([.claim(id(1), user: Self.mallory, standing: .background),
                                     .claim(id(2), user: Self.alice, standing: .foreground)], at: t0, turnLength: 10)
        #expect(actions == [.arm(id(2))], "the preempted claim is never armed in between")
        #expect(arbiter.armed == id(2))
        #expect(arbiter.apply([], at: t0, turnLength: 10).isEmpty, "nothing changed, nothing to do")
    }

    @Test func aPreemptionDisarmsBeforeItArms() {
        var arbiter = SensorArbiter()
        #expect(arbiter.apply([.claim(id(1), user: Self.mallory, standing: .background)], at: t0, turnLength: 10) == [.arm(id(1))])
        #expect(arbiter.apply([.claim(id(2), user: Self.alice, standing: .foreground)], at: t0, turnLength: 10) == [.disarm(id(1)), .arm(id(2))])
        #expect(arbiter.apply([.release(id(2))], at: t0, turnLength: 10) == [.disarm(id(2)), .arm(id(1))], "the preempted claim resumes")
        #expect(arbiter.apply([.release(id(1))], at: t0, turnLength: 10) == [.disarm(id(1))])
        #expect(arbiter.armed == nil)
    }

    @Test func aDueTurnMovesTheSensorAndAnEarlyCheckDoesNothing() {
        var arbiter = SensorArbiter()
        _ = arbiter.apply([.claim(id(1), user: Self.mallory, standing: .unknown),
                           .claim(id(2), user: Self.alice, standing: .unknown)], at: t0, turnLength: 10)
        #expect(arbiter.apply([.turnMayBeDue], at: t0.advanced(by: 9), turnLength: 10).isEmpty)
        #expect(arbiter.apply([.turnMayBeDue], at: t0.advanced(by: 10), turnLength: 10) == [.disarm(id(1)), .arm(id(2))])
    }

    @Test func aLostSensorEndsEveryClaimInArrivalOrderAndDisarms() {
        var arbiter = SensorArbiter()
        _ = arbiter.apply([.claim(id(3), user: Self.carol, standing: .unknown),
                           .claim(id(1), user: Self.mallory, standing: .unknown),
                           .claim(id(2), user: Self.alice, standing: .unknown)], at: t0, turnLength: 10)
        #expect(arbiter.apply([.sensorLost], at: t0, turnLength: 10) == [.lost([id(3), id(1), id(2)]), .disarm(id(3))])
        #expect(arbiter.claimants.isEmpty && arbiter.holder == nil && arbiter.armed == nil)
        #expect(arbiter.apply([.sensorLost], at: t0, turnLength: 10).isEmpty, "no claims, nothing lost")
        #expect(arbiter.apply([.claim(id(4), user: Self.alice, standing: .unknown)], at: t0, turnLength: 10) == [.arm(id(4))],
                "a claim after the loss starts afresh")
    }
}
