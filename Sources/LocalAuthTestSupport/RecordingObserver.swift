// SPDX-License-Identifier: Apache-2.0
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
    }

    private let log = Mutex(Log())

    public init() {}

    public var prompts: [PromptRecord] { log.withLock { $0.prompts } }
    public func promptKinds(for context: ContextID) -> [Prompt.Kind] {
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
        log.withLock { $0.changes.append(snapshot) }
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
