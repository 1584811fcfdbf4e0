// SPDX-License-Identifier: Apache-2.0
@testable import LocalAuthService
import LocalAuthCore
import LocalAuthDBus
import LocalAuthSystem
import Synchronization
import Testing

/// The senders' queues without a bus: order, identity looked up once per sender, quotas.
@Suite struct CallerDirectoryTests {
    /// What the fake bus was asked and what the jobs saw, in order.
    final class Record: Sendable {
        let lookups = Mutex<[String]>([])
        let ran = Mutex<[String]>([])
    }

    /// A gate a job waits at until the test opens it.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
        func wait() async {
            await withCheckedContinuation { continuation in
                let resume = state.withLock { state -> Bool in
                    if state.open { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if resume { continuation.resume() }
            }
        }
        func open() {
            for waiter in state.withLock({ state in state.open = true; defer { state.waiters = [] }; return state.waiters }) { waiter.resume() }
        }
    }

    /// What the queues run in: the daemon's is its engine; here an actor that does nothing else.
    actor Isolation {
        func run<T: Sendable>(_ body: @Sendable (isolated Isolation) -> T) -> T { body(self) }
    }

    static let isolation = Isolation()

    static func directory(_ record: Record, requests: Int = 8, userRequests: Int = 16, failing: Set<String> = []) -> CallerDirectory<Isolation> {
        CallerDirectory(credentials: { sender in
            record.lookups.withLock { $0.append(sender) }
            if failing.contains(sender) { throw DBusError(.nameHasNoOwner, "\(sender) left") }
            return DBusCredentials(uid: sender == ":1.2" ? 1001 : 1000, pid: 7)
        }, identify: { _ in .success(AppIdentity(executable: "/usr/bin/demo")) },
        limits: RequestQueueLimits(perClient: .init(requests: requests, bytes: 1 << 20), perUser: .init(requests: userRequests, bytes: 1 << 20)),
        log: { _, _ in })
    }

    /// Submits a job that records `name` and reports when it ran: at once, or after `gate` (the
    /// job then waits, as a handler that asks polkit does).
    static func submit(_ directory: CallerDirectory<Isolation>, _ record: Record, from sender: String, _ name: String, gate: Gate? = nil,
                       started: AsyncStream<String>.Continuation? = nil, done: AsyncStream<String>.Continuation) async -> DBusError? {
        await isolation.run { isolation in
            directory.submit(from: sender, byteCount: 10, replyExpected: true, on: isolation) { _, identity in
                started?.yield(name)
                let finish: @Sendable () -> Void = {
                    let who = (try? identity.get()).map { "\($0.caller.uid)" } ?? "denied"
                    record.ran.withLock { $0.append("\(name)@\(who)") }
                    done.yield(name)
                }
                guard let gate else {
                    finish()
                    return nil
                }
                return { _ in
                    await gate.wait()
                    finish()
                }
            }
        }
    }

    @Test func oneSendersRequestsRunInArrivalOrderAndItIsLookedUpOnce() async {
        let record = Record(), gate = Gate(), directory = Self.directory(record)
        let (finished, done) = AsyncStream<String>.makeStream()
        #expect(await Self.submit(directory, record, from: ":1.1", "first", gate: gate, done: done) == nil)
        for name in ["second", "third", "fourth"] { #expect(await Self.submit(directory, record, from: ":1.1", name, done: done) == nil) }
        gate.open()
        var iterator = finished.makeAsyncIterator()
        for _ in 0..<4 { _ = await iterator.next() }
        #expect(record.ran.withLock { $0 } == ["first@1000", "second@1000", "third@1000", "fourth@1000"])
        #expect(record.lookups.withLock { $0 } == [":1.1"])
    }

    @Test func anotherSenderIsNotHeldUpByABlockedOne() async {
        let record = Record(), gate = Gate(), directory = Self.directory(record)
        let (finished, done) = AsyncStream<String>.makeStream()
        _ = await Self.submit(directory, record, from: ":1.1", "blocked", gate: gate, done: done)
        _ = await Self.submit(directory, record, from: ":1.2", "other", done: done)
        var iterator = finished.makeAsyncIterator()
        #expect(await iterator.next() == "other")
        gate.open()
        #expect(await iterator.next() == "blocked")
        #expect(record.ran.withLock { $0 } == ["other@1001", "blocked@1000"])
    }

    @Test func overItsBoundASenderIsRefusedUntilItsQueueDrains() async {
        let record = Record(), gate = Gate(), directory = Self.directory(record, requests: 3)
        let (finished, done) = AsyncStream<String>.makeStream()
        for index in 0..<3 { #expect(await Self.submit(directory, record, from: ":1.1", "\(index)", gate: gate, done: done) == nil) }
        let refusal = await Self.submit(directory, record, from: ":1.1", "over", done: done)
        #expect(refusal?.name == .limitsExceeded)
        // Another sender has its own bound.
        #expect(await Self.submit(directory, record, from: ":1.2", "other", done: done) == nil)
        gate.open()
        var iterator = finished.makeAsyncIterator()
        for _ in 0..<4 { _ = await iterator.next() }
        #expect(await Self.submit(directory, record, from: ":1.1", "after", done: done) == nil)
        #expect(await iterator.next() == "after")
        #expect(!record.ran.withLock { $0 }.contains { $0.hasPrefix("over@") })
    }

    @Test func theUserBoundCountsEveryConnectionOfTheUid() async {
        let record = Record(), gate = Gate(), directory = Self.directory(record, requests: 8, userRequests: 3)
        let (finished, done) = AsyncStream<String>.makeStream()
        let (starts, started) = AsyncStream<String>.makeStream()
        // The first request identifies each sender (uid 1000 for both); from then on their work counts for it.
        _ = await Self.submit(directory, record, from: ":1.1", "a", gate: gate, started: started, done: done)
        _ = await Self.submit(directory, record, from: ":1.3", "b", gate: gate, started: started, done: done)
        var startIterator = starts.makeAsyncIterator()
        for _ in 0..<2 { _ = await startIterator.next() }
        #expect(await Self.submit(directory, record, from: ":1.1", "c", done: done) == nil)
        #expect(await Self.submit(directory, record, from: ":1.3", "d", done: done)?.name == .limitsExceeded)
        gate.open()
        var iterator = finished.makeAsyncIterator()
        for _ in 0..<3 { _ = await iterator.next() }
    }

    @Test func aDepartedSendersQueuedWorkCountsForItsUserUntilItHasRun() async {
        let record = Record(), gate = Gate(), directory = Self.directory(record, requests: 8, userRequests: 2)
        let (finished, done) = AsyncStream<String>.makeStream()
        let (starts, started) = AsyncStream<String>.makeStream()
        var iterator = finished.makeAsyncIterator(), startIterator = starts.makeAsyncIterator()
        _ = await Self.submit(directory, record, from: ":1.1", "a", gate: gate, started: started, done: done)
        _ = await startIterator.next()
        #expect(await Self.submit(directory, record, from: ":1.1", "b", done: done) == nil)
        // A second connection of uid 1000, identified by a request that has run.
        #expect(await Self.submit(directory, record, from: ":1.3", "c", done: done) == nil)
        #expect(await iterator.next() == "c")
        let (farewells, farewell) = AsyncStream<Void>.makeStream()
        await Self.isolation.run { isolation in directory.senderLeft(":1.1", on: isolation) { _ in farewell.yield() } }
        // The departed connection's two queued requests still count for the uid.
        #expect(await Self.submit(directory, record, from: ":1.3", "d", done: done)?.name == .limitsExceeded)
        gate.open()
        #expect(await iterator.next() == "a")
        #expect(await iterator.next() == "b")
        var farewellIterator = farewells.makeAsyncIterator()
        _ = await farewellIterator.next()
        #expect(await Self.submit(directory, record, from: ":1.3", "e", done: done) == nil)
        #expect(await iterator.next() == "e")
        #expect(record.ran.withLock { $0 } == ["c@1000", "a@1000", "b@1000", "e@1000"])
    }

    @Test func aLongQueueKeepsItsOrderAsItIsCompactedAndReused() async {
        let record = Record(), gate = Gate(), directory = Self.directory(record, requests: 64, userRequests: 64)
        let (finished, done) = AsyncStream<String>.makeStream()
        var iterator = finished.makeAsyncIterator()
        let names = (0..<40).map { "r\($0)" }
        for (index, name) in names.enumerated() {
            #expect(await Self.submit(directory, record, from: ":1.1", name, gate: index == 0 ? gate : nil, done: done) == nil)
        }
        gate.open()
        for _ in names { _ = await iterator.next() }
        // The queue ran empty; its slots take the next requests.
        for name in ["s0", "s1", "s2"] {
            #expect(await Self.submit(directory, record, from: ":1.1", name, done: done) == nil)
            #expect(await iterator.next() == name)
        }
        #expect(record.ran.withLock { $0 } == (names + ["s0", "s1", "s2"]).map { "\($0)@1000" })
    }

    @Test func aKnownSendersRequestThatNeedNotWaitIsDoneBeforeSubmitReturns() async {
        let record = Record(), directory = Self.directory(record)
        let (finished, done) = AsyncStream<String>.makeStream()
        var iterator = finished.makeAsyncIterator()
        // The first request waits for the bus to say who the sender is.
        #expect(await Self.submit(directory, record, from: ":1.1", "first", done: done) == nil)
        #expect(await iterator.next() == "first")
        #expect(await Self.submit(directory, record, from: ":1.1", "second", done: done) == nil)
        #expect(record.ran.withLock { $0 } == ["first@1000", "second@1000"])
    }

    @Test func requestsBehindOneThatWaitsRunAfterItInOrder() async {
        let record = Record(), directory = Self.directory(record)
        let (first, second) = (Gate(), Gate())
        let (finished, done) = AsyncStream<String>.makeStream()
        var iterator = finished.makeAsyncIterator()
        #expect(await Self.submit(directory, record, from: ":1.1", "a", done: done) == nil)
        #expect(await iterator.next() == "a")
        #expect(await Self.submit(directory, record, from: ":1.1", "b", gate: first, done: done) == nil)
        #expect(await Self.submit(directory, record, from: ":1.1", "c", done: done) == nil)
        #expect(await Self.submit(directory, record, from: ":1.1", "d", gate: second, done: done) == nil)
        #expect(await Self.submit(directory, record, from: ":1.1", "e", done: done) == nil)
        // d's gate opens first, but d waits for b, and c and e for the request before them.
        second.open()
        #expect(record.ran.withLock { $0 } == ["a@1000"])
        first.open()
        for expected in ["b", "c", "d", "e"] { #expect(await iterator.next() == expected) }
        #expect(record.ran.withLock { $0 } == ["a@1000", "b@1000", "c@1000", "d@1000", "e@1000"])
    }

    @Test func aSenderTheBusCannotNameIsDenied() async {
        let record = Record(), directory = Self.directory(record, failing: [":1.9"])
        let (finished, done) = AsyncStream<String>.makeStream()
        _ = await Self.submit(directory, record, from: ":1.9", "call", done: done)
        var iterator = finished.makeAsyncIterator()
        _ = await iterator.next()
        #expect(record.ran.withLock { $0 } == ["call@denied"])
    }
}
