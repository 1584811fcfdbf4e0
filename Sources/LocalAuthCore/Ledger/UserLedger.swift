/// One user's failure counts and locks, shared by every context of that user and persisted
/// before any outcome that changed it is reported.
public struct UserLedger: Codable, Sendable, Hashable {
    /// Consecutive biometric no-matches, across all contexts and modalities.
    public var biometryFailures = 0
    public var biometryLockedOut = false
    /// Consecutive wrong passcodes, across every operation that checks the passcode.
    public var passcodeFailures = 0
    /// No passcode check before this instant.
    public var passcodeRetryAfter: UnixTime?
    /// Locked until an administrator resets it.
    public var passcodeLockedOut = false
    /// The last biometric match of an unlock context; feeds the reuse window. A lockout (of
    /// biometry, or the passcode's first delay) ends the window for good, and so does any change
    /// to the user's passcode or enrollments (see ``endReuseWindow()``).
    public var lastUnlockMatch: UnixTime?

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

    /// Counts one biometric no-match; returns true when this failure locked biometry.
    public mutating func recordBiometricFailure(maxFailures: Int) -> Bool {
        biometryFailures += 1
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
    public func allowsReuse(within window: Double, at now: UnixTime) -> Bool {
        guard window > 0, let last = lastUnlockMatch, now - last >= 0, now - last <= window else { return false }
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

    /// Why a passcode may not be checked now, or nil when it may.
    public func passcodeRefusal(at now: UnixTime) -> LocalAuthError? {
        if passcodeLockedOut {
            return LocalAuthError(.passcodeLockout, "The passcode is locked after too many wrong attempts; an administrator must reset it (localauth lockout reset --uid N).")
        }
        if let retryAfter = passcodeRetryAfter, now < retryAfter {
            let wait = Self.describe(seconds: retryAfter - now)
            return LocalAuthError(.passcodeLockout, "Too many wrong passcodes; try again in \(wait).", retryAfter: retryAfter)
        }
        return nil
    }

    /// Counts one wrong passcode and applies the schedule's delay or lock; either ends the reuse
    /// window. (Attempts are counted before they are checked, so a right passcode at that count
    /// ends it too.)
    public mutating func recordPasscodeFailure(at now: UnixTime, schedule: PasscodeDelaySchedule) {
        passcodeFailures += 1
        switch schedule.consequence(ofFailure: passcodeFailures) {
        case .none:
            passcodeRetryAfter = nil
        case .delay(let seconds):
            passcodeRetryAfter = now + seconds
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
        passcodeLockedOut = false
        biometryFailures = 0
        biometryLockedOut = false
    }

    /// "4 min 12 s", "59 s", "1 h 0 min".
    static func describe(seconds: Double) -> String {
        let total = max(1, Int(seconds.rounded(.up)))
        let hours = total / 3600, minutes = (total % 3600) / 60, rest = total % 60
        if hours > 0 { return "\(hours) h \(minutes) min" }
        if minutes > 0 { return "\(minutes) min \(rest) s" }
        return "\(rest) s"
    }
}
