// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// The scheduler in front of a hasher whose calls wait until the test releases them, and the engine
/// using it: another user's flood costs my check at most one hash per worker.
@Suite("Passcode work: fair per user, bounded", .timeLimit(.minutes(1)))
struct PasscodeWorkSchedulerTests {
    typealias H = EngineHarness
    typealias Call = GatedPasscodeHasher.Call
    static let attacker: UInt32 = 1000, victim: UInt32 = 1001

    /// Yields until `condition` holds; the tasks it waits for need only a few scheduler turns.
    func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<100_000 {
            if condition() { return true }
            await Task.yield()
        }
        return condition()
    }

    /// One verification by `user` through `scheduler`, admitted inside the task.
    func verification(_ passcode: String, by user: UInt32, _ scheduler: PasscodeWorkScheduler,
                      _ limits: PasscodeWorkScheduler.Limits) -> Task<Bool, any Error> {
        Task {
            let work = try scheduler.admit(user, limits: limits)
            return await work.verify(Passcode(passcode), against: "fnv$0")
        }
    }

    @Test(arguments: [1, 2])
    func myJobRunsAfterOneOfTheFloodersJobsPerWorker(workers: Int) async throws {
        let hasher = GatedPasscodeHasher()
        hasher.close()
        let limits = PasscodeWorkScheduler.Limits(workers: workers, operationsPerUser: 100)
        let scheduler = PasscodeWorkScheduler(hasher: hasher, limits: limits)
        let flood = (1...10).map { verification("flood-\($0)", by: Self.attacker, scheduler, limits) }
        #expect(await eventually { scheduler.load(of: Self.attacker) == (workers, 10 - workers) })
        let mine = verification("mine-4711", by: Self.victim, scheduler, limits)
        #expect(await eventually { scheduler.load(of: Self.victim).waiting == 1 })

        let finished = try #require(hasher.releaseOldest())
        #expect(await hasher.waitUntilStarted(workers + 1))
        #expect(hasher.started.last == Call(.verify, "mine-4711"),
                "after \(finished) finished, the next call was \(hasher.started.last!); all: \(hasher.started)")
        #expect(hasher.started.dropLast().allSatisfy { $0.passcode != Call(.verify, "mine-4711").passcode })

        hasher.open()
        _ = try await mine.value
        for task in flood { _ = try await task.value }
        #expect(hasher.mostAtOnce == workers)
        #expect(hasher.started.count == 11)
    }

    @Test func aUserWithTooManyOperationsIsRefusedAtOnceAndOthersAreNot() throws {
        let limits = PasscodeWorkScheduler.Limits(workers: 1, operationsPerUser: 2)
        let scheduler = PasscodeWorkScheduler(hasher: GatedPasscodeHasher(), limits: limits)
        let first = try scheduler.admit(Self.attacker, limits: limits)
        let second = try scheduler.admit(Self.attacker, limits: limits)
        do {
            _ = try scheduler.admit(Self.attacker, limits: limits)
            Issue.record("a third operation was admitted past the limit of 2")
        } catch {
            #expect(error.kind == .limitsExceeded)
            #expect(error.message.contains("2 passcode checks or changes in progress") && error.message.contains("wait"), "\(error.message)")
        }
        let mine = try scheduler.admit(Self.victim, limits: limits)
        _ = consume first
        let third = try scheduler.admit(Self.attacker, limits: limits)
        #expect(third.user == Self.attacker && second.user == Self.attacker && mine.user == Self.victim)
    }

    /// Through the engine: an attacker's passcode changes (a check and a hash each) and my check.
    @Test func anotherUsersPasscodeChangesDelayMyPasscodeByOneHashAndTheExcessIsRefused() async throws {
        var configuration = Configuration()
        configuration.passcodeHashWorkers = 1
        configuration.maxPasscodeOperationsPerUser = 3
        let hasher = GatedPasscodeHasher()
        let h = try EngineHarness(configuration: configuration, passcodeHasher: hasher)
        try await h.setUp(H.alice)
        try await h.setUp(H.bob, passcode: "bob-passcode")
        let context = try await h.context(H.bob)
        let evaluation = await h.begin(.deviceOwnerAuthentication, on: context, by: H.bob)
        hasher.close()
        let before = hasher.started.count
        let engine = h.engine

        let flood = (1...5).map { _ in
            Task { try await engine.setPasscode(current: Passcode(H.passcode), new: Passcode(H.passcode), caller: H.alice) }
        }
        #expect(await eventually { engine.passcodeWork!.load(of: H.alice.uid) == (1, 2) })
        let mine = Task {
            try await engine.submitPasscode(Passcode("bob-passcode"), context: context, caller: H.bob.client)
        }
        #expect(await eventually { engine.passcodeWork!.load(of: H.bob.uid).waiting == 1 })

        hasher.releaseOldest()
        #expect(await hasher.waitUntilStarted(before + 2))
        #expect(Array(hasher.started[before...]) == [Call(.verify, H.passcode), Call(.verify, "bob-passcode")])
        hasher.releaseOldest()
        try await mine.value
        #expect(try await evaluation.result.get() == .passcode)

        hasher.open()
        var refused: [LocalAuthError] = [], changed = 0
        for task in flood {
            switch await task.result.mapError({ $0 as! LocalAuthError }) {
            case .success: changed += 1
            case .failure(let error) where error.kind == .limitsExceeded: refused.append(error)
            case .failure(let error): #expect(error.message.contains("changed while"), "\(error)")
            }
        }
        #expect(refused.count == 2 && changed >= 1, "3 of 5 admitted; refused: \(refused)")
        #expect(hasher.mostAtOnce == 1)
    }

    @Test func aRefusedCheckCountsNothing() async throws {
        var configuration = Configuration()
        configuration.maxPasscodeOperationsPerUser = 1
        let hasher = GatedPasscodeHasher()
        let h = try EngineHarness(configuration: configuration, passcodeHasher: hasher)
        try await h.setUp(H.alice)
        let context = try await h.context(H.alice)
        _ = await h.begin(.deviceOwnerAuthentication, on: context, by: H.alice)
        hasher.close()
        let before = hasher.started.count
        let engine = h.engine
        let pending = Task {
            try await engine.setRequireAttention(false, passcode: Passcode(H.passcode), caller: H.alice)
        }
        #expect(await hasher.waitUntilStarted(before + 1))
        let ledger = h.store.ledger(of: H.alice.uid)
        do {
            try await engine.submitPasscode(Passcode("wrong-guess"), context: context, caller: H.alice.client)
            Issue.record("a second operation was admitted past the limit of 1")
        } catch {
            #expect(error.kind == .limitsExceeded, "\(error)")
        }
        #expect(h.store.ledger(of: H.alice.uid) == ledger, "a refused check must not be counted")
        #expect(try await h.state(of: context, H.alice) == .passcode, "the evaluation goes on")
        hasher.open()
        try await pending.value
    }
}
