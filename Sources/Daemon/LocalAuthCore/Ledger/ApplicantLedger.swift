// SPDX-License-Identifier: Apache-2.0
/// Another user's failures against one user's ledger: what `su VICTIM` or another user's screen
/// locker counts when the person asking (the applicant) is not the user being authenticated.
///
/// An applicant locks only itself out of that user: its no-matches and wrong passcodes never
/// touch the user's own counts or other applicants', and it meets the same thresholds and delays,
/// so it still cannot guess its way in. Kept inside the user's ``UserLedger`` (``UserLedger/applicants``),
/// so it is saved durably before a failure is reported, like the user's own counts.
public struct ApplicantLedger: LockoutCounts, Codable, Sendable, Hashable {
    public var biometryFailures = 0
    public var biometryLockedOut = false
    public var passcodeFailures = 0
    public var passcodeDelay: PasscodeDelay?
    public var passcodeLockedOut = false
    /// When it last counted a failure, in wall time: the least recent goes first when the user's
    /// ledger holds too many applicants (``UserLedger/applicantsKept``).
    public var lastCounted: UnixTime

    public init(lastCounted: UnixTime) {
        self.lastCounted = lastCounted
    }

    /// Whether it holds a lock or a delay: such entries are evicted only when every entry holds one.
    public var holdsLock: Bool { biometryLockedOut || passcodeLockedOut || passcodeDelay != nil }

    /// Nothing counted: the entry need not be kept.
    public var isClear: Bool { self == ApplicantLedger(lastCounted: lastCounted) }
}
