// SPDX-License-Identifier: Apache-2.0
@testable import LocalAuthCore
import Testing

@Suite struct ContextTableTests {
    let alice = ClientID(":1.1"), bob = ClientID(":1.2")

    /// Numbers handed out in order, so that ids are predictable.
    final class Counter: @unchecked Sendable {
        var next: UInt64 = 1
        func draw(_ count: Int) -> [UInt64] {
            defer { next += UInt64(count) }
            return (next..<next + UInt64(count)).reversed()
        }
    }

    @discardableResult
    func add(_ table: inout ContextTable, owner: ClientID, uid: UInt32, counter: Counter) -> ContextID {
        let id = table.newID { counter.draw($0) }
        table.insert(ContextRecord(id: id, owner: owner, ownerUID: uid, user: uid, options: ContextOptions()))
        return id
    }

    /// What the per-client and per-user counts must say, recounted from the records.
    func expectCountsMatchRecords(_ table: ContextTable, clients: [ClientID], uids: [UInt32]) {
        for client in clients {
            let owned = table.filter { $0.value.owner == client }.map(\.key)
            #expect(Set(table.live(of: client)) == Set(owned))
            #expect(table.live(of: client).count == owned.count, "each live context is listed once")
        }
        for uid in uids {
            #expect(table.liveCount(ofUser: uid) == table.filter { $0.value.ownerUID == uid }.count)
        }
    }

    @Test func creatingInvalidatingAndLeavingKeepTheCountsEqualToTheRecords() {
        var table = ContextTable(keptPerClient: 64)
        let counter = Counter()
        var aliceIDs: [ContextID] = []
        for _ in 0..<5 { aliceIDs.append(add(&table, owner: alice, uid: 1000, counter: counter)) }
        let bobsFirst = add(&table, owner: bob, uid: 1000, counter: counter)
        add(&table, owner: bob, uid: 1001, counter: counter)
        #expect(table.count == 7)
        #expect(table.live(of: alice) == aliceIDs, "oldest first")
        #expect(table.liveCount(ofUser: 1000) == 6)
        expectCountsMatchRecords(table, clients: [alice, bob], uids: [1000, 1001])

        #expect(table.invalidate(aliceIDs[2])?.id == aliceIDs[2])
        #expect(table.invalidate(aliceIDs[2]) == nil, "only a live context is invalidated")
        #expect(table[aliceIDs[2]] == nil)
        #expect(table.isInvalidated(aliceIDs[2], by: alice))
        #expect(!table.isInvalidated(aliceIDs[2], by: bob))
        #expect(table.live(of: alice) == [aliceIDs[0], aliceIDs[1], aliceIDs[3], aliceIDs[4]])
        expectCountsMatchRecords(table, clients: [alice, bob], uids: [1000, 1001])

        let left = table.removeClient(alice)
        #expect(left.map(\.id) == [aliceIDs[0], aliceIDs[1], aliceIDs[3], aliceIDs[4]])
        #expect(table.live(of: alice).isEmpty)
        #expect(table.invalidatedCount(of: alice) == 0)
        #expect(!table.isInvalidated(aliceIDs[2], by: alice), "a client that left takes its invalidated contexts with it")
        #expect(table.liveCount(ofUser: 1000) == 1)
        #expect(table.count == 2)
        expectCountsMatchRecords(table, clients: [alice, bob], uids: [1000, 1001])

        table.invalidate(bobsFirst)
        #expect(table.liveCount(ofUser: 1000) == 0)
        #expect(table.liveCount(ofUser: 1001) == 1)
        #expect(table.removeClient(bob).count == 1)
        #expect(table.isEmpty)
        expectCountsMatchRecords(table, clients: [alice, bob], uids: [1000, 1001])
    }

    @Test func onlyTheNewestInvalidatedContextsAreRememberedPerClient() {
        var table = ContextTable(keptPerClient: PolicyEngine.invalidatedContextsKeptPerClient)
        let counter = Counter()
        var ids: [ContextID] = []
        for _ in 0..<(PolicyEngine.invalidatedContextsKeptPerClient + 3) {
            let id = add(&table, owner: alice, uid: 1000, counter: counter)
            table.invalidate(id)
            ids.append(id)
        }
        let bobs = add(&table, owner: bob, uid: 1000, counter: counter)
        table.invalidate(bobs)
        #expect(table.invalidatedCount(of: alice) == PolicyEngine.invalidatedContextsKeptPerClient)
        #expect(ids.prefix(3).allSatisfy { !table.isInvalidated($0, by: alice) }, "the oldest are forgotten first")
        #expect(ids.dropFirst(3).allSatisfy { table.isInvalidated($0, by: alice) })
        #expect(table.isInvalidated(bobs, by: bob), "another client's bound is its own")
        #expect(table.isEmpty)
    }

    @Test func newIDsAreNeverZeroLiveOrRememberedAndFitIn53Bits() {
        var table = ContextTable(keptPerClient: 64)
        let live = ContextID(5), remembered = ContextID(6)
        table.insert(ContextRecord(id: live, owner: alice, ownerUID: 1, user: 1, options: ContextOptions()))
        table.insert(ContextRecord(id: remembered, owner: alice, ownerUID: 1, user: 1, options: ContextOptions()))
        table.invalidate(remembered)
        // Taken from the end: the live and the remembered number (with high bits set) and 0 are
        // refused, so the whole first draw is, and the second one's last is taken.
        var draws = 0
        let id = table.newID { count in
            draws += 1
            return draws == 1 ? Array(repeating: 0, count: count - 2) + [1 << 60 | 6, 1 << 53 | 5]
                              : Array(repeating: 0, count: count - 1) + [1 << 53 | 7]
        }
        #expect(id == ContextID(7))
        #expect(draws == 2)
    }

    @Test func deadlinesFollowRunningEvaluationsOfLiveContexts() {
        var table = ContextTable(keptPerClient: 64)
        let counter = Counter()
        let first = add(&table, owner: alice, uid: 1, counter: counter)
        let second = add(&table, owner: bob, uid: 2, counter: counter)
        let idle = add(&table, owner: bob, uid: 2, counter: counter)
        let at = { (seconds: Double) in BootTime(boot: "b", seconds: seconds) }
        #expect(table.nextDeadline == nil)
        table.beginEvaluation(Self.evaluation(serial: 1), on: first, deadline: at(30))
        table.beginEvaluation(Self.evaluation(serial: 2), on: second, deadline: at(20))
        table.beginEvaluation(Self.evaluation(serial: 3), on: ContextID(999_999), deadline: at(1))
        #expect(table[ContextID(999_999)] == nil, "no evaluation, no deadline for a context that is not live")
        #expect(table.nextDeadline == at(20))
        #expect(table.expired(at: at(25)) == [second])
        #expect(Set(table.expired(at: at(30))) == [first, second])
        #expect(table[idle]?.evaluation == nil)

        #expect(table.endEvaluation(of: second)?.serial == 2)
        #expect(table.endEvaluation(of: second) == nil)
        #expect(table.nextDeadline == at(30))
        table.invalidate(first)
        #expect(table.nextDeadline == nil, "an invalidated context's deadline goes with it")

        table.beginEvaluation(Self.evaluation(serial: 4), on: idle, deadline: at(10))
        _ = table.removeClient(bob)
        #expect(table.nextDeadline == nil, "a leaving client's deadlines go with it")
        #expect(table.expired(at: at(100)).isEmpty)
    }

    @Test func theSubscriptChangesFieldsInPlace() {
        var table = ContextTable(keptPerClient: 64)
        let id = add(&table, owner: alice, uid: 1, counter: Counter())
        table[id]?.biometryType = .touchID
        table[id]?.options.localizedCancelTitle = "Stop"
        #expect(table[id]?.biometryType == .touchID)
        #expect(table[id]?.options.localizedCancelTitle == "Stop")
        #expect(table.count == 1 && table.live(of: alice) == [id])
    }

    @Test func theInPlaceReadsAgreeWithTheRecords() {
        var table = ContextTable(keptPerClient: 64)
        let counter = Counter()
        let running = add(&table, owner: alice, uid: 1000, counter: counter)
        let idle = add(&table, owner: alice, uid: 1000, counter: counter)
        let bobs = add(&table, owner: bob, uid: 1001, counter: counter)
        table.beginEvaluation(Self.evaluation(serial: 7), on: running, deadline: nil)
        for id in [running, idle, bobs, ContextID(999_999)] {
            #expect(table.contains(id) == (table[id] != nil))
            #expect(table.isEvaluating(id) == (table[id]?.evaluation != nil))
            #expect(table.evaluation(of: id)?.serial == table[id]?.evaluation?.serial)
            #expect(table.ownerAndUser(of: id)?.owner == table[id]?.owner)
            #expect(table.ownerAndUser(of: id)?.user == table[id]?.user)
            #expect(table.publication(of: id)?.published == table[id]?.published)
            #expect(table.publication(of: id)?.phase == table[id]?.evaluation?.machine.phase)
            let target = table.attemptTarget(of: id)
            #expect((target != nil) == table.isEvaluating(id))
            #expect(target?.serial == table[id]?.evaluation?.serial && target?.owner == table[id]?.evaluation.map { _ in table[id]!.owner })
            #expect(target.map { ($0.user, $0.applicant, $0.isUnlock) } ?? (0, nil, false) == table[id].flatMap { record in
                record.evaluation.map { _ in (record.user, record.foreignApplicant, record.options.isUnlockContext) } } ?? (0, nil, false))
        }
        #expect(table.attemptTarget(of: running)?.serial == 7)
        #expect(table.isEvaluating(running) && !table.isEvaluating(idle))
        #expect(table.ownerAndUser(of: bobs)?.owner == bob && table.ownerAndUser(of: bobs)?.user == 1001)
        #expect(table.liveCount(of: alice) == 2 && table.liveCount(of: bob) == 1)
        table.invalidate(running)
        #expect(!table.contains(running) && !table.isEvaluating(running) && table.evaluation(of: running) == nil)
        #expect(table.ownerAndUser(of: running) == nil && table.liveCount(of: alice) == 1)
        _ = table.removeClient(bob)
        #expect(table.liveCount(of: bob) == 0 && !table.contains(bobs))
    }

    /// `ContextID`'s own hash spreads even numbers that differ in a few bits over a table's buckets
    /// (the low bits a dictionary uses) as a random function would: ~63 % of 4096 buckets for 4096 keys.
    @Test func contextNumbersSpreadOverTheBuckets() {
        for (seed, step) in [(0, UInt64(1)), (12345, 1), (0, 1 << 12), (-1, 1 << 40)] {
            let buckets = Set((1...4096).map { ContextID(UInt64($0) &* step)._rawHashValue(seed: seed) & 4095 })
            #expect(buckets.count > 2450, "seed \(seed), step \(step): \(buckets.count) buckets")
        }
        var table: [ContextID: Int] = [:]
        for n in 1...10_000 { table[ContextID(UInt64(n) << 20)] = n }
        #expect((1...10_000).allSatisfy { table[ContextID(UInt64($0) << 20)] == $0 })
    }

    static func evaluation(serial: UInt64) -> RunningEvaluation {
        let (machine, _) = Evaluation.start(kind: .biometricsOrPasscode, usable: [], attemptLimits: [:])
        return RunningEvaluation(machine: machine, policy: .deviceOwnerAuthentication, reason: "test", serial: serial, reply: { _ in })
    }
}
