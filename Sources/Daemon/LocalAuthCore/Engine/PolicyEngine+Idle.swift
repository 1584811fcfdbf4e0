// SPDX-License-Identifier: Apache-2.0
extension PolicyEngine {
    /// Whether the daemon may exit when bus activation can start it again: no client holds a
    /// context and no agent is registered. A registered agent waits for sheets; a daemon that left
    /// under it would end the next passcode sheet `notInteractive` and free the session's agent
    /// slot for any process.
    public var isIdle: Bool { contexts.isEmpty && agentDesk.agents.isEmpty }
}
