// SPDX-License-Identifier: Apache-2.0
/// One part of the daemon, in swift-service-lifecycle's run/shutdown shape reduced to what a
/// system daemon needs: ``Daemon`` starts its units in order and shuts them down in reverse.
public protocol DaemonUnit: Sendable {
    /// For log lines.
    var name: String { get }
    /// Brings the unit up; returns once it serves. A failure ends the start-up: the units
    /// already started are shut down, in reverse.
    func start() async throws(Daemon.StartError)
    /// Brings the unit down. Called once, after every unit started later is down.
    func shutdown() async
}

/// What the daemon's event loop reacts to; units emit them (signals, idle exit, a lost bus).
public enum DaemonEvent: Sendable {
    case stop(reason: String)
    case reload
}
