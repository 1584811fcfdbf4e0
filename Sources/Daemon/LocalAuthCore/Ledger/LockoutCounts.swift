// SPDX-License-Identifier: Apache-2.0
/// The failure counts and locks of one ledger: a user's own (``UserLedger``), or those of another
/// user trying to act as them (``ApplicantLedger``). The same thresholds and delays apply to both.
public protocol LockoutCounts {
    /// Consecutive biometric no-matches, across all contexts and modalities.
    var biometryFailures: Int { get set }
    var biometryLockedOut: Bool { get set }
    /// Consecutive wrong passcodes.
    var passcodeFailures: Int { get set }
    /// No passcode check until this delay is over.
    var passcodeDelay: PasscodeDelay? { get set }
    /// Locked until an administrator resets it.
    var passcodeLockedOut: Bool { get set }
}

extension LockoutCounts {
    /// When a passcode may be tried again, in wall time; nil when it may be tried now.
    public func retryAfter(at now: ClockReading) -> UnixTime? {
        guard let remaining = passcodeDelay?.remaining(at: now.uptime), remaining > 0 else { return nil }
        return now.wall + remaining
    }

    /// Why a passcode may not be checked now, or nil when it may.
    public func passcodeRefusal(at now: ClockReading) -> LocalAuthError? {
        if passcodeLockedOut {
            return LocalAuthError(.passcodeLockout, "The passcode is locked after too many wrong attempts; an administrator must reset it (localauth lockout reset --uid N).")
        }
        if let retryAfter = retryAfter(at: now) {
            let wait = UserLedger.describe(seconds: retryAfter - now.wall)
            return LocalAuthError(.passcodeLockout, "Too many wrong passcodes; try again in \(wait).", retryAfter: retryAfter)
        }
        return nil
    }

    /// Counts one biometric no-match; true when this failure locked biometry.
    mutating func countBiometricFailure(maxFailures: Int) -> Bool {
        biometryFailures = min(biometryFailures + 1, UserLedger.countLimit)
        guard !biometryLockedOut && biometryFailures >= maxFailures else { return false }
        biometryLockedOut = true
        return true
    }

    /// Counts one wrong passcode and applies the schedule's delay or lock; returns what it brought.
    mutating func countPasscodeFailure(at now: ClockReading, schedule: PasscodeDelaySchedule) -> PasscodeDelaySchedule.Consequence {
        passcodeFailures = min(passcodeFailures + 1, UserLedger.countLimit)
        let consequence = schedule.consequence(ofFailure: passcodeFailures)
        switch consequence {
        case .none: passcodeDelay = nil
        case .delay(let seconds): passcodeDelay = PasscodeDelay(started: now.uptime, seconds: seconds)
        case .permanentLock: passcodeLockedOut = true
        }
        return consequence
    }

    /// A correct passcode clears every passcode and biometric failure and lock.
    mutating func clearFailures() {
        passcodeFailures = 0
        passcodeDelay = nil
        passcodeLockedOut = false
        biometryFailures = 0
        biometryLockedOut = false
    }

    /// Throws `corrupt` for counts no run of the daemon writes; returns the counts with a delay of
    /// another boot restarted (``PasscodeDelay/validated(at:longest:)``).
    func validatedCounts(at now: ClockReading, schedule: PasscodeDelaySchedule) throws(StateStoreError) -> Self {
        for (name, count) in [("biometryFailures", biometryFailures), ("passcodeFailures", passcodeFailures)]
        where !(0...UserLedger.countLimit).contains(count) {
            throw StateStoreError(.corrupt, "\(name) \(count) is outside 0…\(UserLedger.countLimit)")
        }
        var counts = self
        counts.passcodeDelay = try passcodeDelay?.validated(at: now, longest: schedule.longestDelay)
        return counts
    }
}
