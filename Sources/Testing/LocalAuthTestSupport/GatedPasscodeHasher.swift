// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import Synchronization

/// A passcode hasher whose calls wait until the test lets them return, for tests of scheduling:
/// which call runs when, and how many at once. Answers as ``FakePasscodeHasher`` does.
///
/// Open (every call returns at once) until ``close()``. The mutex owns every piece of state.
public final class GatedPasscodeHasher: PasscodeHasher {
    /// A call, named by what it was given: the passcode's fake stored hash, never the passcode.
    public struct Call: Sendable, Hashable, CustomStringConvertible {
        public enum Kind: Sendable, Hashable { case hash, verify }
        public let kind: Kind
        public let passcode: String

        public init(_ kind: Kind, _ passcode: String) {
            self.kind = kind
            self.passcode = FakePasscodeHasher.storedHash(of: Passcode(passcode))
        }

        init(_ kind: Kind, _ passcode: Passcode) {
            self.kind = kind
            self.passcode = FakePasscodeHasher.storedHash(of: passcode)
        }

        public var description: String { "\(kind)(\(passcode))" }
    }

    private struct State {
        var closed = false
        /// Calls that started, in order.
        var started: [Call] = []
        /// Calls held at the gate, oldest first.
        var held: [(call: Call, gate: CheckedContinuation<Void, Never>)] = []
        var mostAtOnce = 0
        var running = 0
    }

    private let state = Mutex(State())
    private let fake = FakePasscodeHasher()

    public init() {}

    /// From now on every call waits at the gate until ``releaseOldest()`` or ``open()`` lets it return.
    public func close() {
        state.withLock { $0.closed = true }
    }

    /// Lets every waiting call return, and every later one pass at once.
    public func open() {
        let held = state.withLock { state in
            state.closed = false
            defer { state.held = [] }
            return state.held
        }
        for call in held { call.gate.resume() }
    }

    /// Every call that started, in order.
    public var started: [Call] { state.withLock { $0.started } }

    /// Calls waiting at the gate now, oldest first.
    public var held: [Call] { state.withLock { $0.held.map(\.call) } }

    /// The most calls that were running at the same time.
    public var mostAtOnce: Int { state.withLock { $0.mostAtOnce } }

    /// Whether `count` calls have started in all, waiting a bounded number of scheduler turns
    /// (the calls it waits for need only a few), so a test that goes wrong fails instead of hanging.
    public func waitUntilStarted(_ count: Int) async -> Bool {
        for _ in 0..<100_000 {
            if state.withLock({ $0.started.count >= count }) { return true }
            await Task.yield()
        }
        return state.withLock { $0.started.count >= count }
    }

    /// Lets the call that has waited longest return; returns it.
    @discardableResult
    public func releaseOldest() -> Call? {
        let released = state.withLock { state in state.held.isEmpty ? nil : state.held.removeFirst() }
        released?.gate.resume()
        return released?.call
    }

    public func hash(_ passcode: Passcode) async throws(LocalAuthError) -> String {
        await pass(Call(.hash, passcode))
        return try await fake.hash(passcode)
    }

    public func verify(_ passcode: Passcode, against storedHash: String) async -> Bool {
        await pass(Call(.verify, passcode))
        return await fake.verify(passcode, against: storedHash)
    }

    private func pass(_ call: Call) async {
        await withCheckedContinuation { (gate: CheckedContinuation<Void, Never>) in
            let closed = state.withLock { state in
                state.started.append(call)
                state.running += 1
                state.mostAtOnce = max(state.mostAtOnce, state.running)
                if state.closed { state.held.append((call, gate)) }
                return state.closed
            }
            if !closed { gate.resume() }
        }
        state.withLock { $0.running -= 1 }
    }
}
