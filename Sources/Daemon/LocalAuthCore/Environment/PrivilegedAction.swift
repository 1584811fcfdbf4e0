// SPDX-License-Identifier: Apache-2.0
/// An operation that only root may do unless the ``Authorizer`` grants it to the caller.
public enum PrivilegedAction: String, Sendable, Hashable, CaseIterable {
    /// `ResetLockout`: clear another user's (or one's own) counters, delays and locks.
    case resetLockout
    /// `CreateContext` with `User` or `Unlock`: authenticate someone else, as login screens,
    /// sudo and PAM do, or create an unlock context.
    case actForOtherUsers
    /// The simulator interface: it can feed a match into any user's evaluation.
    case useSimulator
}
