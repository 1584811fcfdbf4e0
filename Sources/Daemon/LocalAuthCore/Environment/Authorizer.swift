// SPDX-License-Identifier: Apache-2.0
/// Decides whether a caller other than root may do a ``PrivilegedAction``; the engine never asks
/// it about root (uid 0 is always allowed). The daemon's answers come from polkit.
public protocol Authorizer: Sendable {
    /// Returns when `caller` may do `action`; throws `accessDenied` (or `serviceFailure` when the
    /// question could not be asked) with a message that says what to do.
    func authorize(_ action: PrivilegedAction, caller: Caller) async throws(LocalAuthError)
}
