// SPDX-License-Identifier: Apache-2.0
/// Receives what the engine wants clients to see. Called on the engine's actor: implementations
/// hand the work to their own queue and return at once.
public protocol EngineObserver: Sendable {
    /// A prompt for the owner of one context (`Prompt` signal).
    func prompt(_ prompt: Prompt, context: ContextID, owner: ClientID)
    /// An observable property of a context changed (`PropertiesChanged`).
    func contextChanged(_ snapshot: ContextSnapshot)
    /// The earliest instant at which ``PolicyEngine/handleDeadlines()`` has work; nil for none.
    /// On the boot clock: wait `deadline.remaining(from: clock.uptime())` seconds, measured on a
    /// clock that setting the date does not move, never by comparing with the wall clock.
    /// Also repeated after each ``PolicyEngine/handleDeadlines()``: the timer that called it is spent.
    func nextDeadlineChanged(_ deadline: BootTime?)
    /// A user's record changed (a counter, a lock, the passcode, an enrollment, a setting, or it
    /// was loaded). `state` may equal what was announced before; observers compare.
    func userStateChanged(_ uid: UInt32, _ state: UserState)
}
