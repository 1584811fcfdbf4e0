// SPDX-License-Identifier: Apache-2.0

/// Apple's `LAEnvironmentObserver`: told when the user's authentication state changes
/// (enrollments, passcode, lockout, sensors). Observers are held weakly.
public protocol LAEnvironmentObserver: AnyObject {
    /// `environment.state` changed; `oldState` is what it was. Runs on a private queue.
    func environment(_ environment: LAEnvironment, stateDidChangeFromOldState oldState: LAEnvironmentState)
}

extension LAEnvironmentObserver {
    /// Optional in Apple's protocol: by default nothing happens.
    public func environment(_ environment: LAEnvironment, stateDidChangeFromOldState oldState: LAEnvironmentState) {}
}
