// SPDX-License-Identifier: Apache-2.0
import Dispatch
import LocalAuthAPI

/// Per-user state: loading and saving it, the passcode, enrollments, settings, administrator reset.
///
/// Every operation that checks the passcode goes through ``checkPasscode(_:user:client:work:)``, so all
/// of them count failures in the same ledger and none is a guessing oracle. Every operation that hashes
/// or checks one is admitted first (``admitPasscodeWork(of:)``) and waits its turn for the hasher.
extension PolicyEngine {
    enum PasscodeVerdict { case correct, wrong }

    // MARK: Passcode during an evaluation

    /// Offers the passcode to the context's running policy-2 evaluation. Returns when it was
    /// accepted (the evaluation then succeeds); throws authenticationFailed when wrong (the
    /// evaluation goes on), passcodeLockout while delayed, notEvaluating when nothing takes it.
    public func submitPasscode(_ passcode: Passcode, context id: ContextID, caller: ClientID) async throws(LocalAuthError) {
        let record = try ownedContext(id, caller: caller)
        guard appMayTakePasscode(record) else {
            throw LocalAuthError(.notSupported, "Apps may not submit the passcode (app_passcode_entry = false): the session's agent asks the user for it; run `localauth agent` if none runs.")
        }
        guard let evaluation = record.evaluation, evaluation.machine.acceptsPasscode else {
            throw LocalAuthError(.notEvaluating, "No evaluation of the device-owner policy (2) is running on this context; start one with EvaluatePolicy first.")
        }
        try await applyPasscode(passcode, to: id, serial: evaluation.serial, user: record.user, client: caller)
    }

    /// Checks `passcode` for evaluation `serial` of context `id` (app or agent, the same rules) and
    /// applies the verdict to it if it still runs; `whenWrong` runs first in that case.
    func applyPasscode(_ passcode: Passcode, to id: ContextID, serial: UInt64, user: UInt32, client: ClientID,
                       whenWrong: () -> Void = {}) async throws(LocalAuthError) {
        let work = try admitPasscodeWork(of: user)
        let verdict = try await checkPasscode(passcode, user: user, applicant: contexts[id]?.foreignApplicant, client: client, work: work)
        // Suspended while hashing: the evaluation may have ended, or another one started.
        let stillRunning = contexts[id]?.evaluation?.serial == serial
        switch verdict {
        case .correct:
            guard stillRunning else {
                throw LocalAuthError(.notEvaluating, "The evaluation ended before the passcode was checked.")
            }
            handle(.passcodeAccepted, on: id)
            settle()
        case .wrong:
            if stillRunning {
                whenWrong()
                handle(.passcodeRejected, on: id)
            }
            settle()
            throw Self.wrongPasscode
        }
    }

    static let wrongPasscode = LocalAuthError(.authenticationFailed, "Wrong passcode.")

    /// Admits a passcode operation of `uid`, to be run by the ``PasscodeWorkScheduler``; refused when
    /// the passcode backend is off or the user has too many in progress. Callers admit before they
    /// count anything in the ledger, so a refusal changes nothing.
    func admitPasscodeWork(of uid: UInt32) throws(LocalAuthError) -> PasscodeWorkPermit {
        guard let passcodeWork else { throw Self.passcodeBackendDisabled }
        return try passcodeWork.admit(uid, limits: configuration.passcodeWorkLimits)
    }

    /// Checks a passcode against the user's, counting the attempt in the ledger: the user's own
    /// counts, or those of `applicant`, another user acting as this one (``UserLedger/applicants``).
    ///
    /// The attempt is counted and saved *before* the (slow) comparison and taken back only when it
    /// succeeds: a crash or a concurrent guess can never get a wrong passcode past the count.
    func checkPasscode(_ passcode: Passcode, user uid: UInt32, applicant: UInt32? = nil, client: ClientID,
                       work: borrowing PasscodeWorkPermit) async throws(LocalAuthError) -> PasscodeVerdict {
        // A passcode that cannot have been stored is bad input: refused, not counted.
        try passcode.validateForStorage()
        let user = userRecord(uid)
        if user.profileDamaged { throw Self.damagedProfile }
        guard let storedHash = user.profile.passcodeHash else { throw LocalAuthError(.passcodeNotSet) }
        let now = environment.clock.reading()
        if let refusal = user.ledger.passcodeRefusal(at: now, for: applicant) { throw refusal }
        try requireSavedLedger(of: uid)

        let schedule = configuration.passcodeSchedule
        updateUser(uid) { $0.ledger.recordPasscodeFailure(at: now, schedule: schedule, by: applicant) }
        // Not compared unless counted durably; the count stays in memory either way. The actor
        // serves others meanwhile; a concurrent guess of this user counts on top of this one.
        try await saveLedgerDurably(of: uid)
        let matches = await work.verify(passcode, against: storedHash)

        guard matches else {
            let ledger = userRecord(uid).ledger.counts(of: applicant)
            let whom = applicant.map { " for uid \($0) (another user acting as this one)" } ?? ""
            if ledger.passcodeLockedOut {
                recordAudit(AuditEntry(.passcodeLockout, severity: .warning, user: uid, client: client.rawValue, result: "locked",
                                                    message: "Passcode locked\(whom) after \(ledger.passcodeFailures) consecutive wrong passcodes; an administrator must reset it."))
                for (id, record) in contexts where record.user == uid && (applicant == nil || record.foreignApplicant == applicant) {
                    handle(.passcodePermanentlyLocked, on: id)
                }
                settle()
            } else if let delay = ledger.passcodeDelay {
                recordAudit(AuditEntry(.passcodeLockout, severity: .notice, user: uid, client: client.rawValue, result: "delayed",
                                                    message: "\(ledger.passcodeFailures) consecutive wrong passcodes\(whom); next try allowed in \(UserLedger.describe(seconds: delay.seconds))."))
            }
            return .wrong
        }
        updateUser(uid) { $0.ledger.recordPasscodeSuccess(by: applicant) }
        // A success only lowers counts: if it cannot be saved, the stricter saved ones stay in force on disk.
        try? await saveLedgerDurably(of: uid)
        return .correct
    }

    /// Admits the check of `passcode` for a profile change and runs it; throws when it is refused,
    /// wrong or may not be tried. Returns the hash it was checked against.
    @discardableResult
    func requirePasscode(_ passcode: Passcode, user uid: UInt32, client: ClientID) async throws(LocalAuthError) -> String? {
        let work = try admitPasscodeWork(of: uid)
        return try await requirePasscode(passcode, user: uid, client: client, work: work)
    }

    /// Checks `passcode` for a profile change under an admitted `work`; throws when it is wrong or may not be tried.
    private func requirePasscode(_ passcode: Passcode, user uid: UInt32, client: ClientID,
                                 work: borrowing PasscodeWorkPermit) async throws(LocalAuthError) -> String? {
        let storedHash = userRecord(uid).profile.passcodeHash
        guard try await checkPasscode(passcode, user: uid, client: client, work: work) == .correct else { throw Self.wrongPasscode }
        return storedHash
    }

    // MARK: Profile changes

    /// Sets the passcode (`current` empty when none is set) or changes it (`current` must match).
    public func setPasscode(current: Passcode, new: Passcode, caller: Caller) async throws(LocalAuthError) {
        remember(caller)
        try new.validateForStorage()
        let uid = caller.uid
        let work = try admitPasscodeWork(of: uid)
        let user = userRecord(uid)
        if user.profileDamaged { throw Self.damagedProfile }
        let verifiedHash: String?
        if user.profile.hasPasscode {
            verifiedHash = try await requirePasscode(current, user: uid, client: caller.client, work: work)
        } else {
            guard current.isEmpty else {
                throw LocalAuthError(.invalidArgument, "No passcode is set yet; pass an empty current passcode.")
            }
            verifiedHash = nil
        }
        let newHash = try await work.hash(new)
        try await changeProfile(of: uid, expectingPasscodeHash: verifiedHash) { profile in
            profile.passcodeHash = newHash
        }
        recordAudit(AuditEntry(.passcodeChange, severity: .notice, user: uid, client: caller.client.rawValue,
                                            result: verifiedHash == nil ? "set" : "changed", message: verifiedHash == nil ? "Passcode set." : "Passcode changed."))
    }

    /// Removes the passcode and, as on Apple devices, every biometric enrollment, every right and
    /// the stored login password.
    public func removePasscode(current: Passcode, caller: Caller) async throws(LocalAuthError) {
        remember(caller)
        let uid = caller.uid
        let verifiedHash = try await requirePasscode(current, user: uid, client: caller.client)
        // Rights that need the passcode go with it, durably before the reply (Apple: items that
        // vanish when the passcode is removed); when that fails the passcode stays.
        // No right may be saved until it is over (it would outlive the passcode it needs).
        users.beginPasscodeRemoval(of: uid)
        defer { users.endPasscodeRemoval(of: uid) }
        try await removeEveryRight(of: uid, client: caller.client)
        // Taken in the user's save turn: an enrollment saved while this waited for it is removed too.
        var removedProfile = UserProfile()
        try await changeProfile(of: uid, expectingPasscodeHash: verifiedHash) { profile in
            removedProfile = profile
            profile.passcodeHash = nil
            profile.removeAllEnrollments()
        }
        await forgetProviderTemplates(of: removedProfile, user: uid)
        recordAudit(AuditEntry(.passcodeChange, severity: .notice, user: uid, client: caller.client.rawValue,
                                            result: "removed", message: "Passcode removed, together with every biometric enrollment."))
    }

    /// Enrolls a finger or face appearance; re-enrolling a label replaces it (and changes the domain state).
    ///
    /// A ``CapturingBackend`` (a provider) takes its captures after the passcode was checked,
    /// calling `progress` per capture; the label is stored only once its template exists, and a
    /// template the profile no longer names (replaced, or not saved) is deleted again.
    public func enroll(_ modality: BiometricModality, label: String, passcode: Passcode, caller: Caller,
                       progress: @escaping @Sendable (EnrollmentProgress) -> Void = { _ in }) async throws(LocalAuthError) {
        remember(caller)
        let uid = caller.uid
        let backend = try enabledBackend(modality)
        try backend.validateEnrollment(label: label, existing: userRecord(uid).profile.labels(of: modality))
        let verifiedHash = try await requirePasscode(passcode, user: uid, client: caller.client)
        let capturing = backend as? any CapturingBackend
        let template = try await capturing?.capture(user: uid, label: label, progress: progress)
        var replaced: String?
        do throws(LocalAuthError) {
            try await changeProfile(of: uid, expectingPasscodeHash: verifiedHash) { (profile) throws(LocalAuthError) in
                try backend.validateEnrollment(label: label, existing: profile.labels(of: modality))
                replaced = profile.templates(of: modality)[label]
                profile.enroll(modality, label: label, template: template)
            }
        } catch {
            if let capturing, let template { await capturing.deleteTemplates([template], user: uid) }
            throw error
        }
        if let capturing, let replaced, replaced != template { await capturing.deleteTemplates([replaced], user: uid) }
        recordAudit(AuditEntry(.enrollmentChange, severity: .notice, user: uid, client: caller.client.rawValue,
                                            result: "enrolled", message: "Enrolled \(modality.rawValue) \(label)."))
    }

    /// Removes an enrollment (and any that depend on it, such as a face's alternate appearance).
    public func unenroll(_ modality: BiometricModality, label: String, passcode: Passcode, caller: Caller) async throws(LocalAuthError) {
        remember(caller)
        let uid = caller.uid
        let backend = try enabledBackend(modality)
        guard userRecord(uid).profile.isEnrolled(modality, label: label) else {
            throw LocalAuthError(.invalidArgument, "The \(modality.rawValue) \"\(DisplayText.escaped(label, limit: 64))\" is not enrolled.")
        }
        let verifiedHash = try await requirePasscode(passcode, user: uid, client: caller.client)
        var removed: Set<String> = []
        var templates: [String] = []
        try await changeProfile(of: uid, expectingPasscodeHash: verifiedHash) { profile in
            removed = backend.labelsRemoved(withUnenrolling: label, existing: profile.labels(of: modality))
            templates = profile.templates(of: modality).filter { removed.contains($0.key) }.map(\.value)
            profile.unenroll(modality, labels: removed)
        }
        if let capturing = backend as? any CapturingBackend, !templates.isEmpty {
            await capturing.deleteTemplates(templates, user: uid)
        }
        recordAudit(AuditEntry(.enrollmentChange, severity: .notice, user: uid, client: caller.client.rawValue,
                                            result: "unenrolled", message: "Unenrolled \(modality.rawValue) \(removed.sorted().joined(separator: ", "))."))
    }

    public func setRequireAttention(_ enabled: Bool, passcode: Passcode, caller: Caller) async throws(LocalAuthError) {
        remember(caller)
        let uid = caller.uid
        let verifiedHash = try await requirePasscode(passcode, user: uid, client: caller.client)
        try await changeProfile(of: uid, expectingPasscodeHash: verifiedHash) { profile in
            profile.requireAttention = enabled
        }
        recordAudit(AuditEntry(.attentionChange, severity: .notice, user: uid, client: caller.client.rawValue,
                                            result: enabled ? "on" : "off", message: "Require attention turned \(enabled ? "on" : "off")."))
    }

    /// Administrator reset: clears every counter and lock of `uid`. A profile that could not be
    /// read is moved aside (kept for inspection) and the user starts afresh.
    /// Needs ``PrivilegedAction/resetLockout``.
    public func resetLockout(user uid: UInt32, caller: Caller) async throws(LocalAuthError) {
        remember(caller)
        try await authorize(.resetLockout, caller: caller)
        await beginSaveTurn(of: uid)
        defer { endSaveTurn(of: uid) }
        if userRecord(uid).profileDamaged {
            let store = environment.store
            if case .failure(let error) = await saveElsewhere({ () throws(StateStoreError) in try store.quarantineProfile(user: uid) }) {
                throw LocalAuthError(.serviceFailure, "Could not move the unreadable profile of uid \(uid) aside: \(error.message)")
            }
            updateUser(uid) {
                $0.profile = UserProfile()
                $0.profileDamaged = false
            }
        }
        // Reset in memory before the save is submitted, so that an attempt counted meanwhile counts
        // on the reset ledger and its own save (which supersedes this one) keeps the reset.
        updateUser(uid) { $0.ledger = UserLedger() }
        do throws(LocalAuthError) {
            // An unsaved reset leaves the user refusing attempts until a save succeeds.
            try await saveLedgerDurably(of: uid)
        } catch {
            throw LocalAuthError(.serviceFailure, "Could not save the reset ledger of uid \(uid); attempts are refused until it can be saved. Free disk space or make the state directory writable.")
        }
        recordAudit(AuditEntry(.administratorReset, severity: .notice, user: uid, client: caller.client.rawValue,
                                            result: "reset", message: "An administrator (uid \(caller.uid)) cleared every counter and lock of uid \(uid)."))
    }

    public func userState(of uid: UInt32) -> UserState {
        userState(of: userRecord(uid), uid: uid)
    }

    private func userState(of user: UserRecord, uid: UInt32) -> UserState {
        let retryAfter = user.ledger.retryAfter(at: environment.clock.reading())
        return UserState(passcodeSet: user.profile.hasPasscode, enrollments: user.profile.enrollments,
                         biometryFailures: user.ledger.biometryFailures, biometryLockedOut: user.ledger.biometryLockedOut,
                         passcodeFailures: user.ledger.passcodeFailures, passcodeRetryAfter: retryAfter,
                         passcodeLockedOut: user.ledger.passcodeLockedOut, requireAttention: user.profile.requireAttention,
                         loginPasswordStored: loginPasswordStored(uid))
    }

    /// Changes a loaded user's record in place and announces a change to the observer
    /// (``EngineObserver/userStateChanged(_:_:)``); nil, and `change` not run, if the user is not
    /// loaded (loading a record changes nobody's state). A changed profile drops the user's cached
    /// domain state (``UserTable/update(_:_:)``).
    @discardableResult
    func updateUser<Value>(_ uid: UInt32, _ change: (inout UserRecord) -> Value) -> Value? {
        guard let (value, changed) = users.update(uid, change) else { return nil }
        if let after = changed { environment.observer?.userStateChanged(uid, userState(of: after, uid: uid)) }
        return value
    }

    // MARK: Loading and saving

    /// `body` on the user's record, loaded on first use as by ``userRecord(_:)``, where it is kept:
    /// reading a few fields this way copies only those, not the whole record.
    func withUserRecord<T>(_ uid: UInt32, _ body: (UserRecord) -> T) -> T {
        if let value = users.read(uid, body) { return value }
        return body(userRecord(uid))
    }

    /// The user's cached state, loaded on first use. Unreadable state fails closed: everything locked.
    func userRecord(_ uid: UInt32) -> UserRecord {
        if let record = users[uid] { return record }
        var record = UserRecord(profile: UserProfile(), ledger: UserLedger())
        let store = environment.store
        do throws(StateStoreError) {
            if let profile = try store.loadProfile(user: uid) { record.profile = profile }
        } catch {
            record.profileDamaged = true
            reportStateError("Could not read the profile of uid \(uid) (\(error.message)); treating the user as locked until an administrator reset.", user: uid)
        }
        var adapted = false
        do throws(StateStoreError) {
            if let ledger = try store.loadLedger(user: uid) {
                record.ledger = try ledger.validated(at: environment.clock.reading(), schedule: configuration.passcodeSchedule)
                adapted = record.ledger.passcodeDelay != ledger.passcodeDelay
            }
        } catch {
            record.ledger = failClosedLedger
            reportStateError("Could not read the lockout ledger of uid \(uid) (\(error.message)); treating the user as locked until an administrator reset.", user: uid)
        }
        if record.profileDamaged { record.ledger = failClosedLedger }
        users.load(record, for: uid)
        // A delay restarted in this boot is saved, so that a second restart does not restart it again.
        if adapted && !record.profileDamaged { try? persistLedger(of: uid) }
        return users[uid] ?? record
    }

    private var failClosedLedger: UserLedger {
        .failClosed(biometryMaxFailures: configuration.biometryMaxFailures, passcodeMaxFailures: configuration.passcodeMaxFailures)
    }

    /// Saves the user's ledger, blocking the engine's executor (in the daemon, the thread that reads
    /// the bus) until the write ended: only for rare paths that cannot suspend
    /// (see ``saveLedgerDurably(of:)``).
    func persistLedger(of uid: UInt32) throws(LocalAuthError) {
        guard let record = users[uid] else { return }
        try settleLedgerSave(of: uid, environment.store.submitLedger(record.ledger, user: uid).outcomeBlocking())
    }

    /// Saves the user's ledger as it is now and returns once a durable write includes it; the
    /// actor serves other requests meanwhile, and changes made meanwhile may share the write.
    /// Callers re-check what they act on after it returns.
    func saveLedgerDurably(of uid: UInt32) async throws(LocalAuthError) {
        let commit = submitLedger(of: uid)
        try settleLedgerSave(of: uid, await commit.outcome())
    }

    /// Hands the user's ledger as it is now to the store's writer; settle the outcome with
    /// ``settleLedgerSave(of:_:)``.
    func submitLedger(of uid: UInt32) -> LedgerCommit {
        environment.store.submitLedger(userRecord(uid).ledger, user: uid)
    }

    /// When a save failed the in-memory counts stay in force, the user is marked so that attempts
    /// are refused until a save succeeds, and the first failure is logged; the error says what to do.
    func settleLedgerSave(of uid: UInt32, _ outcome: LedgerCommit.Outcome) throws(LocalAuthError) {
        guard let record = users[uid] else { return }
        switch outcome {
        case .failure(let error):
            if !record.ledgerUnsaved {
                updateUser(uid) { $0.ledgerUnsaved = true }
                reportStateError("Could not save the lockout ledger of uid \(uid) (\(error.message)); its counts stay in force in memory and its attempts are refused until the ledger can be saved. Free disk space or make the state directory writable.", user: uid)
            }
            throw Self.unsaveableLedger
        case .success:
            if record.ledgerUnsaved {
                updateUser(uid) { $0.ledgerUnsaved = false }
                recordAudit(AuditEntry(.stateError, severity: .notice, user: uid, result: "recovered",
                                       message: "The lockout ledger of uid \(uid) could be saved again; its attempts are accepted again."))
            }
        }
    }

    /// Retries the save of a ledger whose last save failed; throws while it still fails. Every
    /// attempt (biometric, passcode, new evaluation) passes here first, so nothing is counted
    /// only in memory.
    func requireSavedLedger(of uid: UInt32) throws(LocalAuthError) {
        guard users.isLedgerUnsaved(of: uid) ?? userRecord(uid).ledgerUnsaved else { return }
        try persistLedger(of: uid)
    }

    /// Waits until no other change of the user's profile or face decisions is being saved, then
    /// holds the user's turn until ``endSaveTurn(of:)``: a change saved while the engine serves
    /// others must not be overtaken by one made from the state before it.
    func beginSaveTurn(of uid: UInt32) async {
        guard !users.takeSaveTurn(of: uid) else { return }
        await withCheckedContinuation(isolation: self) { continuation in
            // Asked again: entering the continuation is an `await`, after which the turn may be free.
            if users.takeSaveTurn(of: uid) { continuation.resume() } else { users.waitForSaveTurn(of: uid) { continuation.resume() } }
        }
    }

    /// Hands the user's turn to the next change waiting for it.
    func endSaveTurn(of uid: UInt32) {
        users.passSaveTurn(of: uid)?()
    }

    /// Runs a synchronous, durable save (a profile, face decisions, a quarantine) on a queue of
    /// its own and comes back with its outcome; the engine serves others meanwhile. The engine's
    /// executor may be the thread that reads the bus, which an fsync must not hold, and Swift's
    /// cooperative pool (two threads here) is no place to wait for a disk either.
    nonisolated func saveElsewhere(_ save: @escaping @Sendable () throws(StateStoreError) -> Void) async -> Result<Void, StateStoreError> {
        await withCheckedContinuation { continuation in
            Self.saves.async {
                do throws(StateStoreError) {
                    try save()
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
    }

    /// Where ``saveElsewhere(_:)`` saves, one at a time.
    private static let saves = DispatchQueue(label: "localauth.state-saves")

    /// Applies `change` to the profile and saves it, ending the reuse window; nothing changes when
    /// the save fails, or when the passcode changed while this operation was checking it. Waits
    /// for the user's turn first (``beginSaveTurn(of:)``).
    private func changeProfile(of uid: UInt32, expectingPasscodeHash expected: String?,
                               _ change: (inout UserProfile) throws(LocalAuthError) -> Void) async throws(LocalAuthError) {
        await beginSaveTurn(of: uid)
        defer { endSaveTurn(of: uid) }
        let record = userRecord(uid)
        if record.profileDamaged { throw Self.damagedProfile }
        guard record.profile.passcodeHash == expected else {
            throw LocalAuthError(.serviceFailure, "The passcode changed while this request was being checked; try again.")
        }
        var profile = record.profile
        try change(&profile)
        let (store, saved) = (environment.store, profile)
        if case .failure(let error) = await saveElsewhere({ () throws(StateStoreError) in try store.saveProfile(saved, user: uid) }) {
            reportStateError("Could not save the profile of uid \(uid): \(error.message)", user: uid)
            throw LocalAuthError(.serviceFailure, "Could not save the change (\(error.message)); nothing was changed.")
        }
        updateUser(uid) { $0.profile = profile }
        // A recent unlock vouched for the user as they authenticated then, not as they do now.
        if users[uid]?.ledger.lastUnlockMatch != nil {
            updateUser(uid) { $0.ledger.endReuseWindow() }
            // The change itself is saved; an unsaved ledger is flagged and refuses attempts until saved.
            try? await saveLedgerDurably(of: uid)
        }
    }

    /// Deletes the provider templates behind every enrollment of `profile` (which is gone).
    private func forgetProviderTemplates(of profile: UserProfile, user uid: UInt32) async {
        for (modality, backend) in backends {
            guard let capturing = backend as? any CapturingBackend else { continue }
            let templates = Array(profile.templates(of: modality).values)
            if !templates.isEmpty { await capturing.deleteTemplates(templates, user: uid) }
        }
    }

    private func enabledBackend(_ modality: BiometricModality) throws(LocalAuthError) -> any BiometricBackend {
        guard let backend = backends[modality] else {
            throw LocalAuthError(.notSupported, "No \(modality.rawValue) backend is enabled; add it to `backends` in localauthd.conf.")
        }
        return backend
    }

    private func reportStateError(_ message: String, user: UInt32) {
        recordAudit(AuditEntry(.stateError, severity: .error, user: user, result: "fail-closed", message: message))
    }

    /// What a client is told while its ledger cannot be saved; the cause (with paths) goes to the log only.
    static let unsaveableLedger = LocalAuthError(.serviceFailure, "The authentication service cannot save your failed-attempt count, so no attempt can be accepted now. An administrator must free disk space or make localauthd's state directory writable (its log says why); then try again.")
    static let passcodeBackendDisabled = LocalAuthError(.notSupported, "The passcode backend is not enabled; add `passcode` to `backends` in localauthd.conf.")
    static let damagedProfile = LocalAuthError(.serviceFailure, "This user's stored state could not be read; an administrator must reset it (localauth lockout reset --uid N).")
}
