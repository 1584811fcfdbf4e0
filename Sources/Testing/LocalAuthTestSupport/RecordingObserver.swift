// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import Synchronization

/// Keeps every prompt, context change, deadline and user state the engine announces.
public final class RecordingObserver: EngineObserver {
    public struct PromptRecord: Sendable, Hashable {
        public let prompt: Prompt
        public let context: ContextID
        public let owner: ClientID
    }

    private struct Log {
        var prompts: [PromptRecord] = []
        var changes: [ContextSnapshot] = []
        var deadlines: [BootTime?] = []
        var userStates: [(uid: UInt32, state: UserState)] = []
        var lastExpectation: UInt64 = 0
        var expectations: [UInt64: Expectation] = [:]
    }

    /// One ``expectActivity(of:)``: met by the context's next change to a state other than idle,
    /// or by ``meet(_:)``; ``wait(for:)`` resumes once it is met.
    private struct Expectation {
        let context: ContextID
        var met = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    /// Names a registered expectation.
    public struct ExpectationID: Sendable, Hashable {
        let rawValue: UInt64
    }

    private let log = Mutex(Log())

    public init() {}

    public var prompts: [PromptRecord] { log.withLock { $0.prompts } }
    public func promptKinds(for context: ContextID) -> [PromptKind] {
        log.withLock { $0.prompts.filter { $0.context == context }.map(\.prompt.kind) }
    }
    public var changes: [ContextSnapshot] { log.withLock { $0.changes } }
    public var lastDeadline: BootTime? { log.withLock { $0.deadlines.last ?? nil } }
    /// How many times the engine announced its next deadline (each announcement arms a timer).
    public var deadlineAnnouncements: Int { log.withLock { $0.deadlines.count } }

    public func prompt(_ prompt: Prompt, context: ContextID, owner: ClientID) {
        log.withLock { $0.prompts.append(PromptRecord(prompt: prompt, context: context, owner: owner)) }
    }

    public func contextChanged(_ snapshot: ContextSnapshot) {
        let waiters = log.withLock { log -> [CheckedContinuation<Void, Never>] in
            log.changes.append(snapshot)
            guard snapshot.state != .idle else { return [] }
            var waiters: [CheckedContinuation<Void, Never>] = []
            for (id, expectation) in log.expectations where expectation.context == snapshot.id && !expectation.met {
                log.expectations[id]?.met = true
                if let waiter = log.expectations[id]?.waiter { waiters.append(waiter) }
                log.expectations[id]?.waiter = nil
            }
            return waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Registers an expectation that `context` becomes active (a change to a state other than idle)
    /// from now on; register before starting what should cause it, so the change cannot be missed.
    public func expectActivity(of context: ContextID) -> ExpectationID {
        log.withLock { log in
            log.lastExpectation += 1
            log.expectations[log.lastExpectation] = Expectation(context: context)
            return ExpectationID(rawValue: log.lastExpectation)
        }
    }

    /// Meets an expectation without the change (what should have caused it is over).
    public func meet(_ expectation: ExpectationID) {
        let waiter = log.withLock { log -> CheckedContinuation<Void, Never>? in
            log.expectations[expectation.rawValue]?.met = true
            defer { log.expectations[expectation.rawValue]?.waiter = nil }
            return log.expectations[expectation.rawValue]?.waiter
        }
        waiter?.resume()
    }

    /// Returns once `expectation` is met, and forgets it.
    public func wait(for expectation: ExpectationID) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let met = log.withLock { log -> Bool in
                guard log.expectations[expectation.rawValue]?.met == false else { return true }
                log.expectations[expectation.rawValue]?.waiter = continuation
                return false
            }
            if met { continuation.resume() }
        }
        log.withLock { _ = $0.expectations.removeValue(forKey: expectation.rawValue) }
    }

    /// Every user state announced, oldest first.
    public var userStates: [(uid: UInt32, state: UserState)] { log.withLock { $0.userStates } }

    public func userStateChanged(_ uid: UInt32, _ state: UserState) {
        log.withLock { $0.userStates.append((uid, state)) }
    }

    public func nextDeadlineChanged(_ deadline: BootTime?) {
        log.withLock { $0.deadlines.append(deadline) }
    }
}
