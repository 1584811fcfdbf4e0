/// Receives what the engine wants clients to see. Called on the engine's actor: implementations
/// hand the work to their own queue and return at once.
public protocol EngineObserver: Sendable {
    /// A prompt for the owner of one context (`Prompt` signal).
    func prompt(_ prompt: Prompt, context: ContextID, owner: ClientID)
    /// An observable property of a context changed (`PropertiesChanged`).
    func contextChanged(_ snapshot: ContextSnapshot)
    /// The earliest instant at which ``PolicyEngine/handleDeadlines()`` has work; nil for none.
    func nextDeadlineChanged(_ deadline: UnixTime?)
}
