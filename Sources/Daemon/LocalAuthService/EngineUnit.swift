// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore

/// The policy engine: serves from the moment it is made; shutting down ends every evaluation
/// with systemCancel (their replies go out before the bus connection closes) and refuses new ones.
/// Agents are registered in the engine (``AgentDesk``), so they go down with it.
struct EngineUnit: DaemonUnit {
    let name = "engine"
    let engine: PolicyEngine

    func start() {}

    func shutdown() async {
        await engine.shutdown()
    }
}
