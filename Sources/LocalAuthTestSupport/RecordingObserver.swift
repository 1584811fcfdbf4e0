import LocalAuthCore
import Synchronization

/// Keeps every prompt, context change and deadline the engine announces.
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

    public func nextDeadlineChanged(_ deadline: BootTime?) {
        log.withLock { $0.deadlines.append(deadline) }
    }
}
