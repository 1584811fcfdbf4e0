// SPDX-License-Identifier: Apache-2.0
/// The result of one attempt a provider reports (`ProviderHost.Attempt`'s `result`, protocol 1).
public enum AttemptResult: String, Sendable, CaseIterable, Hashable {
    /// An enrolled template matched; the detail is its label.
    case match
    /// A read that matched nothing; counts as a failure.
    case noMatch = "no-match"
    /// A read that could not be judged; the detail is a ``RetryReason``.
    case retry
    /// The sensor went away.
    case disconnected
}
