// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// docs/rules.md, "Sensor sharing": the foreground session's user first, users in turn, one place
/// in line per user, re-arming goes to the back.
@Suite("Sensor sharing between users", .timeLimit(.minutes(1)))
struct SensorSharingTests {
    typealias H = EngineHarness
    let bio = LAPolicy.deviceOwnerAuthenticationWithBiometrics
    static let mallory = Caller(client: ClientID(":1.30"), uid: 65534, pid: 3000)
    static let malloryAgain = Caller(client: ClientID(":1.31"), uid: 65534, pid: 3001)
    static let carol = Caller(client: ClientID(":1.40"), uid: 1002, pid: 4000)
    static let finger = "right-index-finger"

    /// Alice (the victim) and Mallory (uid 65534) both enrolled the same finger name, so a touch
    /// shows whose evaluation the sensor serves.
    func ready(_ configure: (inout Configuration) -> Void = { _ in }) async throws -> EngineHarness {
        var configuration = Configuration()
        configure(&configuration)
        let h = try EngineHarness(configuration: configuration)
        try await h.setUp(H.alice, fingers: [Self.finger])
        try await h.setUp(Self.mallory, fingers: [Self.finger])
        return h
    }

    @Test func aUserThatReArmsGetsNoSecondTurnBeforeAWaitingUser() async throws {
        let h = try await ready()
        // Mallory starts three evaluations (two clients) before Alice starts hers.
        let mine = [try await h.context(Self.mallory), try await h.context(Self.mallory), try await h.context(Self.malloryAgain)]
        let callers = [Self.mallory, Self.mallory, Self.malloryAgain]
        var running = [RunningEvaluationHandle]()
        for (context, caller) in zip(mine, callers) { running.append(await h.begin(bio, on: context, by: caller)) }
        let aliceContext = try await h.context(H.alice)
        let alice = await h.begin(bio, on: aliceContext, by: H.alice)
        #expect(try await h.state(of: aliceContext) == .waiting)

        // Mallory re-arms the holder: cancel and start again.
        try await h.engine.cancel(context: mine[0], caller: Self.mallory.client)
        #expect(await running[0].errorCode == .userCancel)
        running[0] = await h.begin(bio, on: mine[0], by: Self.mallory)

        try #require(try await h.state(of: aliceContext) == .biometry, "Alice's turn comes right after Mallory's")
        try await h.fingerprint.touch(Self.finger)
        #expect(try await alice.result.get() == .biometricMatch(.fingerprint))
        for (context, caller) in zip(mine, callers) {
            #expect(try await h.state(of: context, caller) != .idle, "the touch meant for Alice must not end Mallory's evaluations")
        }
    }

    @Test func eachUserHasOnePlaceInLineHoweverManyEvaluationsItRuns() async throws {
        let h = try await ready()
        try await h.setUp(Self.carol, fingers: [Self.finger])
        let mine = [try await h.context(Self.mallory), try await h.context(Self.mallory)]
        let first = await h.begin(bio, on: mine[0], by: Self.mallory)
        _ = await h.begin(bio, on: mine[1], by: Self.mallory)
        let aliceContext = try await h.context(H.alice)
        let carolContext = try await h.context(Self.carol)
        let alice = await h.begin(bio, on: aliceContext, by: H.alice)
        let carol = await h.begin(bio, on: carolContext, by: Self.carol)

        try await h.engine.cancel(context: mine[0], caller: Self.mallory.client)
        #expect(await first.errorCode == .userCancel)
        try #require(try await h.state(of: aliceContext) == .biometry)
        try await h.fingerprint.touch(Self.finger)
        #expect(try await alice.result.get() == .biometricMatch(.fingerprint))
        try #require(try await h.state(of: carolContext, Self.carol) == .biometry, "Carol before Mallory's second evaluation")
        #expect(try await h.state(of: mine[1], Self.mallory) == .waiting)
        try await h.fingerprint.touch(Self.finger)
        #expect(try await carol.result.get() == .biometricMatch(.fingerprint))
        #expect(try await h.state(of: mine[1], Self.mallory) == .biometry)
    }

    @Test func aTurnEndsAfterTheTurnLengthWhileAnotherUserWaits() async throws {
        let h = try await ready { $0.sensorTurnLength = 10 }
        let malloryContext = try await h.context(Self.mallory)
        let mallory = await h.begin(bio, on: malloryContext, by: Self.mallory)
        h.clock.advance(by: 30)  // holding alone does not use up a turn
        let aliceContext = try await h.context(H.alice)
        let alice = await h.begin(bio, on: aliceContext, by: H.alice)
        #expect(try await h.state(of: aliceContext) == .waiting)
        #expect(h.observer.lastDeadline == h.clock.uptime().advanced(by: 10))

        h.clock.advance(by: 10)
        await h.engine.handleDeadlines()
        try #require(try await h.state(of: aliceContext) == .biometry)
        #expect(try await h.state(of: malloryContext, Self.mallory) == .waiting, "preempted, still running")
        try await h.fingerprint.touch(Self.finger)
        #expect(try await alice.result.get() == .biometricMatch(.fingerprint))
        #expect(try await h.state(of: malloryContext, Self.mallory) == .biometry)
        #expect(await h.engine.userState(of: Self.mallory.uid).biometryFailures == 0)
        try await h.engine.cancel(context: malloryContext, caller: Self.mallory.client)
        #expect(await mallory.errorCode == .userCancel)
    }

    @Test func theForegroundUserTakesTheSensorFromARemoteOneAtOnce() async throws {
        let h = try await ready()
        h.sessions.set(.background, user: Self.mallory.uid)
        h.sessions.set(.foreground, user: H.alice.uid)
        let malloryContext = try await h.context(Self.mallory)
        _ = await h.begin(bio, on: malloryContext, by: Self.mallory)
        #expect(try await h.state(of: malloryContext, Self.mallory) == .biometry)

        let aliceContext = try await h.context(H.alice)
        let alice = await h.begin(bio, on: aliceContext, by: H.alice)
        #expect(try await h.state(of: aliceContext) == .biometry)
        #expect(try await h.state(of: malloryContext, Self.mallory) == .waiting)
        // Mallory re-arming from the remote session does not take it back.
        try await h.engine.cancel(context: malloryContext, caller: Self.mallory.client)
        _ = await h.begin(bio, on: malloryContext, by: Self.mallory)
        try #require(try await h.state(of: aliceContext) == .biometry)
        try await h.fingerprint.touch(Self.finger)
        #expect(try await alice.result.get() == .biometricMatch(.fingerprint))
        #expect(try await h.state(of: malloryContext, Self.mallory) == .biometry)
    }

    @Test func aLoneClaimAsksNoStandingAndGetsTheOneOfTheMomentAnotherJoins() async throws {
        let h = try await ready()
        h.sessions.set(.foreground, user: Self.mallory.uid)
        let malloryContext = try await h.context(Self.mallory)
        _ = await h.begin(bio, on: malloryContext, by: Self.mallory)
        #expect(try await h.state(of: malloryContext, Self.mallory) == .biometry)
        #expect(h.sessions.standingQueries == 0, "nobody else claims the sensor: logind is not asked")

        // Mallory's session went to the background while she held the sensor alone.
        h.sessions.set(.background, user: Self.mallory.uid)
        h.sessions.set(.foreground, user: H.alice.uid)
        let aliceContext = try await h.context(H.alice)
        _ = await h.begin(bio, on: aliceContext, by: H.alice)
        #expect(h.sessions.standingQueries == 2, "both claims' standings, as they are when the second joins")
        #expect(try await h.state(of: aliceContext) == .biometry)
        #expect(try await h.state(of: malloryContext, Self.mallory) == .waiting)
    }

    @Test func theStandingComesFromTheClientsProcess() async throws {
        let h = try await ready()
        h.sessions.set(LoginSession(id: "c2", owner: Self.mallory.uid), process: Self.malloryAgain.pid!)
        h.sessions.set(.foreground, session: "c2")
        h.sessions.set(.background, user: Self.mallory.uid)
        let remote = try await h.context(Self.mallory)
        _ = await h.begin(bio, on: remote, by: Self.mallory)
        let aliceContext = try await h.context(H.alice)
        _ = await h.begin(bio, on: aliceContext, by: H.alice)
        #expect(try await h.state(of: aliceContext) == .biometry, "no session information beats a remote session")
        let local = try await h.context(Self.malloryAgain)
        _ = await h.begin(bio, on: local, by: Self.malloryAgain)
        #expect(try await h.state(of: local, Self.malloryAgain) == .biometry, "the foreground process goes first")
        #expect(try await h.state(of: aliceContext) == .waiting)
    }
}
