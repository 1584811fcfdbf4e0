// SPDX-License-Identifier: Apache-2.0
/// What a context is doing, as the `State` property reports it.
public enum ContextState: String, Sendable, Hashable, CaseIterable {
    /// No evaluation runs.
    case idle
    /// An evaluation wants a sensor that another evaluation holds.
    case waiting
    /// An evaluation is listening on at least one biometric sensor.
    case biometry
    /// An evaluation waits for the passcode only.
    case passcode
    /// Invalidated: every call fails with invalidContext.
    case invalidated
}
