// SPDX-License-Identifier: Apache-2.0
/// One user's failure counts and locks, shared by every context of that user and persisted
/// before any outcome that changed it is reported.
///
/// Attempts by another user acting as this one (an *applicant*: `su`, sudo as that user, another
/// user's screen locker; see ``ContextOptions/applicant``) are counted apart, in ``applicants``:
/// they lock only that applicant out of this user. The user's own locks apply to every applicant.
/// Methods taking `applicant` read nil as the user themself.
public struct UserLedger: LockoutCounts, Codable, Sendable, Hashable {
    /// Consecutive biometric no-matches of the user themself, across all contexts and modalities.
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
    /// Other users' counts against this user, by the applicant's uid in decimal; at most
    /// ``applicantsKept``. Absent from files written before it existed.
    public var applicants: [String: ApplicantLedger] = [:]

    /// Counts beyond this are not believed when loaded, and counting stops here (no overflow).
    /// Far above any lock threshold (at most 1000), so it changes no outcome.
    public static let countLimit = 1_000_000
    /// Applicants kept per user. Beyond it the one that counted least recently is forgotten,
    /// preferring those that hold no lock or delay: to free its own entry an applicant needs this
    /// many other users' failures against the same user.
    public static let applicantsKept = 64

    public init() {}

    private enum CodingKeys: String, CodingKey {
        case biometryFailures, biometryLockedOut, passcodeFailures, passcodeRetryAfter, passcodeDelay,
             passcodeLockedOut, lastUnlockMatch, applicants
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        biometryFailures = try container.decode(Int.self, forKey: .biometryFailures)
        biometryLockedOut = try container.decode(Bool.self, forKey: .biometryLockedOut)
        passcodeFailures = try container.decode(Int.self, forKey: .passcodeFailures)
        passcodeRetryAfter = try container.decodeIfPresent(UnixTime.self, forKey: .passcodeRetryAfter)
        passcodeDelay = try container.decodeIfPresent(PasscodeDelay.self, forKey: .passcodeDelay)
        passcodeLockedOut = try container.decode(Bool.self, forKey: .passcodeLockedOut)
        lastUnlockMatch = try container.decodeIfPresent(UnixTime.self, forKey: .lastUnlockMatch)
        applicants = try container.decodeIfPresent([String: ApplicantLedger].self, forKey: .applicants) ?? [:]
    }

    /// `applicants` is written only when someone else has asked, so a ledger nobody else touched is
    /// the same file as before applicants existed.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(biometryFailures, forKey: .biometryFailures)
        try container.encode(biometryLockedOut, forKey: .biometryLockedOut)
        try container.encode(passcodeFailures, forKey: .passcodeFailures)
        try container.encodeIfPresent(passcodeRetryAfter, forKey: .passcodeRetryAfter)
        try container.encodeIfPresent(passcodeDelay, forKey: .passcodeDelay)
        try container.encode(passcodeLockedOut, forKey: .passcodeLockedOut)
        try container.encodeIfPresent(lastUnlockMatch, forKey: .lastUnlockMatch)
        if !applicants.isEmpty { try container.encode(applicants, forKey: .applicants) }
    }

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
    /// delay longer than the schedule's longest, more than ``applicantsKept`` applicants or one
    /// that is not a uid), which the engine treats as unreadable.
    ///
    /// A delay saved in another boot starts again for its full length (the time that passed
    /// while the machine was off cannot be trusted); one saved in this boot goes on where it was.
    /// A file without ``passcodeDelay`` is read by its wall-clock ``passcodeRetryAfter``.
    public func validated(at now: ClockReading, schedule: PasscodeDelaySchedule) throws(StateStoreError) -> UserLedger {
        for (name, time) in [("passcodeRetryAfter", passcodeRetryAfter), ("lastUnlockMatch", lastUnlockMatch)] {
            if let time, !time.seconds.isFinite { throw StateStoreError(.corrupt, "\(name) is not a finite time") }
        }
        guard applicants.count <= Self.applicantsKept else {
            throw StateStoreError(.corrupt, "\(applicants.count) applicants are kept; at most \(Self.applicantsKept) are")
        }
        var ledger = try validatedCounts(at: now, schedule: schedule)
        for (key, applicant) in applicants {
            guard let uid = UInt32(key), String(uid) == key else {
                throw StateStoreError(.corrupt, "the applicant \"\(key)\" is not a uid")
            }
            guard applicant.lastCounted.seconds.isFinite else {
                throw StateStoreError(.corrupt, "the last count of applicant \(key) is not a finite time")
            }
            ledger.applicants[key] = try applicant.validatedCounts(at: now, schedule: schedule)
        }
        if passcodeDelay == nil, let retryAfter = passcodeRetryAfter {
            let remaining = retryAfter - now.wall
            let longest = schedule.longestDelay
            guard remaining <= longest else {
                throw StateStoreError(.corrupt, "the passcode retry time is \(Self.describe(seconds: remaining)) ahead, beyond the longest delay of \(Self.describe(seconds: longest))")
            }
            ledger.passcodeDelay = remaining > 0 ? PasscodeDelay(started: now.uptime, seconds: remaining) : nil
        }
        ledger.passcodeRetryAfter = ledger.retryAfter(at: now)
        return ledger
    }

    // MARK: Reading, for the user themself or an applicant

    /// The counts that `applicant`'s own attempts change: the user's, or the applicant's (empty
    /// when it has counted nothing yet).
    public func counts(of applicant: UInt32?) -> any LockoutCounts {
        guard let applicant else { return self }
        return applicants[String(applicant)] ?? ApplicantLedger(lastCounted: UnixTime(0))
    }

    /// Whether biometry is locked for `applicant`: by the user's own lock, or its own.
    public func isBiometryLockedOut(for applicant: UInt32?) -> Bool {
        // The user's own case (nearly every evaluation) without boxing the ledger as `any LockoutCounts`.
        guard applicant != nil else { return biometryLockedOut }
        return biometryLockedOut || counts(of: applicant).biometryLockedOut
    }

    /// Why `applicant` may not have a passcode checked now, or nil when it may: the user's own
    /// lock or delay applies to everyone, an applicant's only to itself.
    public func passcodeRefusal(at now: ClockReading, for applicant: UInt32?) -> LocalAuthError? {
        passcodeRefusal(at: now) ?? counts(of: applicant).passcodeRefusal(at: now)
    }

    /// Whether an unlock match within the last `window` seconds satisfies an evaluation without
    /// a prompt (Apple's `touchIDAuthenticationAllowableReuseDuration`). Never while biometry or
    /// the passcode is locked out or delayed: a lockout says the owner may not be the one here.
    /// Never for an applicant: the user's unlock is not another user's.
    public func allowsReuse(within window: Double, at now: ClockReading, for applicant: UInt32? = nil) -> Bool {
        guard applicant == nil, window > 0, let last = lastUnlockMatch, now.wall - last >= 0, now.wall - last <= window else { return false }
        return !biometryLockedOut && passcodeRefusal(at: now) == nil
    }

    // MARK: Counting

    /// Counts one biometric no-match of the user themself; returns true when this failure locked biometry.
    public mutating func recordBiometricFailure(maxFailures: Int) -> Bool {
        let lockedNow = countBiometricFailure(maxFailures: maxFailures)
        if lockedNow { endReuseWindow() }
        return lockedNow
    }

    /// Counts one biometric no-match of `applicant` at `now`; returns true when this failure
    /// locked biometry for it (for everyone when it is the user themself).
    public mutating func recordBiometricFailure(maxFailures: Int, by applicant: UInt32?, at now: UnixTime) -> Bool {
        guard let applicant else { return recordBiometricFailure(maxFailures: maxFailures) }
        return updateApplicant(applicant, at: now) { $0.countBiometricFailure(maxFailures: maxFailures) }
    }

    /// Forgets the last unlock match: the next evaluation prompts, whatever its reuse duration.
    public mutating func endReuseWindow() {
        lastUnlockMatch = nil
    }

    /// A biometric match ends the run of consecutive failures of whoever matched; an applicant's
    /// match changes nothing of the user's own (nor opens their reuse window).
    public mutating func recordBiometricMatch(unlockAt time: UnixTime?, by applicant: UInt32? = nil) {
        guard let applicant else {
            biometryFailures = 0
            if let time { lastUnlockMatch = time }
            return
        }
        let key = String(applicant)
        applicants[key]?.biometryFailures = 0
        if applicants[key]?.isClear == true { applicants[key] = nil }
    }

    /// Counts one wrong passcode of `applicant` and applies the schedule's delay or lock; the
    /// user's own delay or lock ends the reuse window. (Attempts are counted before they are
    /// checked, so a right passcode at that count ends it too.)
    public mutating func recordPasscodeFailure(at now: ClockReading, schedule: PasscodeDelaySchedule, by applicant: UInt32? = nil) {
        guard let applicant else {
            switch countPasscodeFailure(at: now, schedule: schedule) {
            case .none:
                passcodeRetryAfter = nil
            case .delay(let seconds):
                passcodeRetryAfter = now.wall + seconds
                endReuseWindow()
            case .permanentLock:
                endReuseWindow()
            }
            return
        }
        _ = updateApplicant(applicant, at: now.wall) { $0.countPasscodeFailure(at: now, schedule: schedule) }
    }

    /// A correct passcode clears every passcode and biometric failure and lock of whoever typed
    /// it: the user's own, or the applicant's (then the user's stay as they are).
    public mutating func recordPasscodeSuccess(by applicant: UInt32? = nil) {
        guard let applicant else {
            clearFailures()
            passcodeRetryAfter = nil
            return
        }
        applicants[String(applicant)] = nil
    }

    /// Changes `applicant`'s entry, made if missing, and keeps at most ``applicantsKept``.
    private mutating func updateApplicant<Result>(_ applicant: UInt32, at now: UnixTime,
                                                  _ change: (inout ApplicantLedger) -> Result) -> Result {
        let key = String(applicant)
        var entry = applicants[key] ?? ApplicantLedger(lastCounted: now)
        let result = change(&entry)
        entry.lastCounted = now
        applicants[key] = entry
        while applicants.count > Self.applicantsKept {
            let oldest = applicants.filter { $0.key != key }
                .min { ($0.value.holdsLock ? 1 : 0, $0.value.lastCounted) < ($1.value.holdsLock ? 1 : 0, $1.value.lastCounted) }
            guard let oldest else { break }
            applicants[oldest.key] = nil
        }
        return result
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
