// SPDX-License-Identifier: Apache-2.0
/// One user's failure counts and locks, shared by every context of that user and persisted
/// before any outcome that changed it is reported.
public struct UserLedger: Codable, Sendable, Hashable {
    /// Consecutive biometric no-matches, across all contexts and modalities.
    public var biometryFailures = 0
    public var biometryLockedOut = false
    /// Consecutive wrong passcodes, across every operation that checks the passcode.
    public var passcodeFailures = 0
    /// When the running delay ends, in wall time when it started: for people reading the file and
    /// for files written before ``passcodeDelay`` existed. The rules use ``passcodeDelay``.
    public var passcodeRetryAfter: UnixTime?
    /// No passcode check until this delay is over.
    public var passcodeDelay: PasscodeDelay?
    /// Locked until an administrator resets it.
    public var passcodeLockedOut = false
    /// The last biometric match of an unlock context; feeds the reuse window. A lockout (of
    /// biometry, or the passcode's first delay) ends the window for good, and so does any change
    /// to the user's passcode or enrollments (see ``endReuseWindow()``).
    public var lastUnlockMatch: UnixTime?

    /// Counts beyond this are not believed when loaded, and counting stops here (no overflow).
    /// Far above any lock threshold (at most 1000), so it changes no outcome.
    public static let countLimit = 1_000_000

    public init() {}

    /// The ledger used when the stored one cannot be read: everything locked, so nothing is
    /// granted on state we cannot trust. Only an administrator reset clears it.
    public static func failClosed(biometryMaxFailures: Int, passcodeMaxFailures: Int) -> UserLedger {
        var ledger = UserLedger()
        ledger.biometryFailures = biometryMaxFailures
        ledger.biometryLockedOut = true
        ledger.passcodeFailures = passcodeMaxFailures
        ledger.passcodeLockedOut = true
        return ledger
    }

    /// The ledger as loaded from storage, checked and adapted to this run; throws `corrupt` for
    /// values no run of the daemon writes (negative or huge counts, times that are not finite, a
    /// delay longer than the schedule's longest), which the engine treats as unreadable.
    ///
    /// A delay saved in another boot starts again for its full length (the time that passed
    /// while the machine was off cannot be trusted); one saved in this boot goes on where it was.
    /// A file without ``passcodeDelay`` is read by its wall-clock ``passcodeRetryAfter``.
    public func validated(at now: ClockReading, schedule: PasscodeDelaySchedule) throws(StateStoreError) -> UserLedger {
        for (name, count) in [("biometryFailures", biometryFailures), ("passcodeFailures", passcodeFailures)]
        where !(0...Self.countLimit).contains(count) {
            throw StateStoreError(.corrupt, "\(name) \(count) is outside 0…\(Self.countLimit)")
        }
        for (name, time) in [("passcodeRetryAfter", passcodeRetryAfter), ("lastUnlockMatch", lastUnlockMatch)] {
            if let time, !time.seconds.isFinite { throw StateStoreError(.corrupt, "\(name) is not a finite time") }
        }
        let longest = schedule.longestDelay
        var ledger = self
        if var delay = passcodeDelay {
            guard delay.seconds.isFinite, (0...longest).contains(delay.seconds) else {
                throw StateStoreError(.corrupt, "a passcode delay of \(delay.seconds) s is outside 0…\(longest) s")
            }
            guard delay.started.seconds.isFinite, delay.started.seconds >= 0 else {
                throw StateStoreError(.corrupt, "the passcode delay's start \(delay.started.seconds) is not a boot-clock time")
            }
            if delay.started.boot == now.uptime.boot {
                guard delay.started.seconds <= now.uptime.seconds else {
                    throw StateStoreError(.corrupt, "the passcode delay starts \(delay.started.seconds - now.uptime.seconds) s in this boot's future")
                }
            } else {
                delay.started = now.uptime
            }
            ledger.passcodeDelay = delay
        } else if let retryAfter = passcodeRetryAfter {
            let remaining = retryAfter - now.wall
            guard remaining <= longest else {
                throw StateStoreError(.corrupt, "the passcode retry time is \(Self.describe(seconds: remaining)) ahead, beyond the longest delay of \(Self.describe(seconds: longest))")
            }
            ledger.passcodeDelay = remaining > 0 ? PasscodeDelay(started: now.uptime, seconds: remaining) : nil
        }
        ledger.passcodeRetryAfter = ledger.retryAfter(at: now)
        return ledger
    }

    /// Counts one biometric no-match; returns true when this failure locked biometry.
    public mutating func recordBiometricFailure(maxFailures: Int) -> Bool {
        biometryFailures = min(biometryFailures + 1, Self.countLimit)
        if !biometryLockedOut && biometryFailures >= maxFailures {
            biometryLockedOut = true
            endReuseWindow()
            return true
        }
        return false
    }

    /// Whether an unlock match within the last `window` seconds satisfies an evaluation without
    /// a prompt (Apple's `touchIDAuthenticationAllowableReuseDuration`). Never while biometry or
    /// the passcode is locked out or delayed: a lockout says the owner may not be the one here.
    public func allowsReuse(within window: Double, at now: ClockReading) -> Bool {
        guard window > 0, let last = lastUnlockMatch, now.wall - last >= 0, now.wall - last <= window else { return false }
        return !biometryLockedOut && passcodeRefusal(at: now) == nil
    }

    /// Forgets the last unlock match: the next evaluation prompts, whatever its reuse duration.
    public mutating func endReuseWindow() {
        lastUnlockMatch = nil
    }

    /// A biometric match ends the run of consecutive failures.
    public mutating func recordBiometricMatch(unlockAt time: UnixTime?) {
        biometryFailures = 0
        if let time { lastUnlockMatch = time }
    }

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
            let wait = Self.describe(seconds: retryAfter - now.wall)
            return LocalAuthError(.passcodeLockout, "Too many wrong passcodes; try again in \(wait).", retryAfter: retryAfter)
        }
        return nil
    }

    /// Counts one wrong passcode and applies the schedule's delay or lock; either ends the reuse
    /// window. (Attempts are counted before they are checked, so a right passcode at that count
    /// ends it too.)
    public mutating func recordPasscodeFailure(at now: ClockReading, schedule: PasscodeDelaySchedule) {
        passcodeFailures = min(passcodeFailures + 1, Self.countLimit)
        switch schedule.consequence(ofFailure: passcodeFailures) {
        case .none:
            passcodeDelay = nil
            passcodeRetryAfter = nil
        case .delay(let seconds):
            passcodeDelay = PasscodeDelay(started: now.uptime, seconds: seconds)
            passcodeRetryAfter = now.wall + seconds
            endReuseWindow()
        case .permanentLock:
            passcodeLockedOut = true
            endReuseWindow()
        }
    }

    /// A correct passcode clears every passcode and biometric failure and lock.
    public mutating func recordPasscodeSuccess() {
        passcodeFailures = 0
        passcodeRetryAfter = nil
        passcodeDelay = nil
        passcodeLockedOut = false
        biometryFailures = 0
        biometryLockedOut = false
    }

    /// "4 min 12 s", "59 s", "1 h 0 min"; any Double, however absurd, gives a text.
    static func describe(seconds: Double) -> String {
        let bounded = seconds.isNaN ? 1 : min(max(seconds, 1), 1e12)
        let total = Int(bounded.rounded(.up))
        let hours = total / 3600, minutes = (total % 3600) / 60, rest = total % 60
        if hours > 0 { return "\(hours) h \(minutes) min" }
        if minutes > 0 { return "\(minutes) min \(rest) s" }
        return "\(rest) s"
    }
}
