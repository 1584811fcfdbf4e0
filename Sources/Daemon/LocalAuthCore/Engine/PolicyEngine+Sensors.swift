// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// Sensor arbitration and biometric attempts.
///
/// Each sensor serves the evaluation its ``SensorArbiter`` chooses (foreground session first,
/// users in turn); the others wait. The arbiter is a pure state machine: the engine derives claim
/// events from each dirty context's wanted sensors, applies them, and performs the actions it
/// returns (``performSensorActions(_:on:)``).
extension PolicyEngine {
    /// Bounds ``settle()``'s loop; every round consumes a queued attempt, a lost sensor or a holder change.
    static let settleRoundLimit = 10_000

    /// Brings claims, armed sensors, queued attempts and observers up to date after a change.
    func settle() {
        for _ in 0..<Self.settleRoundLimit {
            if !stepSensors() { break }
        }
        publishChanges()
    }

    /// Called by a backend (through its session) with an attempt; false when that session is no longer armed.
    func sensorReported(_ attempt: AttemptEvent, on modality: BiometricModality, session: UInt64) async -> Bool {
        while sensors.saving(modality) != nil {
            // Checked again inside: entering the continuation is an `await`, after which the save
            // may have ended (the engine may run other work there).
            await withCheckedContinuation(isolation: self) { continuation in
                if sensors.saving(modality) == nil { continuation.resume() } else { sensors.wait(on: modality) { continuation.resume() } }
            }
        }
        // An armed session whose evaluation already ended (its disarm is still to come) takes no
        // input: false keeps it for the next session instead of dropping it.
        guard let armed = sensors.armed(modality, session: session),
              contexts.isEvaluating(armed.context) else { return false }
        if let saving = handleAttempt(attempt, on: modality) {
            sensors.beginSaving(saving.context, on: modality)
            await reportSaved(saving)
        }
        settle()
        return true
    }

    /// Performs what a sensor's arbiter decided, in order.
    func performSensorActions(_ actions: [SensorArbiter.Action], on modality: BiometricModality) {
        guard let backend = backends[modality] else { return }
        for action in actions {
            switch action {
            case .lost(let contexts):
                for id in contexts { handle(.sensorLost(modality), on: id) }
            case .disarm:
                if let armed = sensors.disarm(modality) {
                    backend.disarm(armed.session.id)
                    dirty.insert(armed.context)
                }
            case .arm(let id):
                arm(backend, for: id)
            }
        }
    }

    /// One round: the dirty contexts' claims and lost sensors go to the arbiters, their actions
    /// are performed, and each armed sensor hands over one queued attempt. False when nothing changed.
    private func stepSensors() -> Bool {
        let claimEvents = takeClaimEvents()
        // Read once, and only when a sensor has something to apply.
        var now: BootTime?
        var progressed = false
        for modality in BiometricModality.allCases {
            var events = claimEvents[modality] ?? []
            let backend = backends[modality]
            if let backend, sensors.hasClaims(modality), !backend.isAvailable { events.append(.sensorLost) }
            // Most rounds bring a sensor nothing: applying no events to a settled arbiter is a no-op.
            if !events.isEmpty || !sensors.isSettled(modality) {
                let at = now ?? environment.clock.uptime()
                now = at
                let actions = sensors.apply(events, on: modality, at: at, turnLength: configuration.sensorTurnLength)
                // With no sensor to arm, the claims only decide the contexts' waiting state.
                if backend != nil {
                    performSensorActions(actions, on: modality)
                    progressed = progressed || !actions.isEmpty
                }
            }
            guard let backend else { continue }
            if sensors.saving(modality) == nil, let armed = sensors.armed(modality), contexts.isEvaluating(armed.context),
               let attempt = backend.takeQueuedAttempt(for: armed.session) {
                if let saving = handleAttempt(attempt, on: modality) {
                    sensors.beginSaving(saving.context, on: modality)
                    Task {
                        await reportSaved(saving)
                        settle()
                    }
                }
                progressed = true
            }
        }
        return progressed
    }

    /// The claim events of the contexts marked dirty, per sensor: releases first, then new claims
    /// in evaluation order. Clears ``dirty`` and queues those contexts for publication.
    private func takeClaimEvents() -> ModalityMap<[SensorArbiter.Event]> {
        guard !dirty.isEmpty else { return ModalityMap() }
        var events = ModalityMap<[SensorArbiter.Event]>()
        var newcomers = ModalityMap<[(serial: UInt64, id: ContextID)]>()
        for id in dirty {
            let evaluation = contexts.evaluation(of: id)
            var wanted = evaluation?.machine.wantedSensors ?? []
            if !wanted.isEmpty { wanted.subtract(heldBackSensors(id)) }
            for modality in BiometricModality.allCases {
                let claimed = sensors.isClaimed(modality, by: id)
                if claimed && !wanted.contains(modality) {
                    events[modality, default: []].append(.release(id))
                } else if !claimed && wanted.contains(modality), let serial = evaluation?.serial {
                    newcomers[modality, default: []].append((serial, id))
                }
            }
        }
        for (modality, list) in newcomers {
            // A lone claim on a sensor nobody claims is filed without its standing (no logind
            // read); when others join, every claim without one gets it first (SensorArbiter).
            let alone = list.count == 1 && !sensors.hasClaims(modality)
            if !alone {
                for id in sensors.claimsWithoutStanding(modality) {
                    guard let standing = standing(of: id) else { continue }
                    events[modality, default: []].append(.standing(id, standing))
                }
            }
            // Usually one: sorting copies the list.
            for (_, id) in list.count > 1 ? list.sorted(by: { $0.serial < $1.serial }) : list {
                guard let user = contexts.ownerAndUser(of: id)?.user else { continue }
                events[modality, default: []].append(.claim(id, user: user, standing: alone ? nil : standing(of: id)))
            }
        }
        for id in dirty where contexts.contains(id) { pendingPublication.insert(id) }
        dirty.removeAll(keepingCapacity: dirty.capacity <= 64)
        return events
    }

    /// The standing of the client that owns context `id`, from logind; nil when `id` is not live.
    private func standing(of id: ContextID) -> SessionStanding? {
        guard let (owner, user) = contexts.ownerAndUser(of: id) else { return nil }
        return environment.sessions?.standing(in: session(of: owner), user: user) ?? .unknown
    }

    private func arm(_ backend: any BiometricBackend, for id: ContextID) {
        guard let user = contexts.ownerAndUser(of: id)?.user else { return }
        let modality = backend.modality
        let (labels, templates, requireAttention) = withUserRecord(user) {
            ($0.profile.labels(of: modality), $0.profile.templates(of: modality), $0.profile.requireAttention)
        }
        let sessionID = sensors.issueSessionID()
        // The session holds the engine strongly, and so does the backend while the session is
        // armed: every armed session is disarmed when its evaluation leaves the biometric phase.
        // A weak reference gave the engine a side table, which sent each of its retains and
        // releases (dozens a call) down the runtime's slow path.
        let session = SensorSession(
            id: sessionID, user: user, enrolledLabels: labels, templates: templates, requireAttention: requireAttention,
            deliver: { attempt in
                await self.sensorReported(attempt, on: modality, session: sessionID)
            })
        sensors.arm(session, for: id, on: modality)
        backend.arm(session)
        dirty.insert(id)
    }

    /// A biometric attempt counted in memory whose ledger write is under way; ``reportSaved(_:)``
    /// reports it once the write ended.
    struct SavingAttempt: Sendable {
        enum Outcome: Sendable {
            case matched
            case noMatch(lockedNow: Bool)
        }

        let outcome: Outcome
        let modality: BiometricModality
        let context: ContextID
        /// The evaluation the attempt belongs to; a later one of the same context is not told.
        let serial: UInt64
        let user: UInt32
        /// Another user whose failure this is (``ContextRecord/foreignApplicant``).
        let applicant: UInt32?
        let owner: ClientID
        let commit: LedgerCommit
    }

    /// Applies one attempt to the evaluation holding `modality`, counting it in the ledger first.
    /// An attempt that changed the ledger is returned, to be reported by ``reportSaved(_:)`` once
    /// saved; the actor serves others meanwhile.
    private func handleAttempt(_ attempt: AttemptEvent, on modality: BiometricModality) -> SavingAttempt? {
        // The few fields needed, read in place: a copy of the context's record retains ~20 references.
        guard let id = sensors.armed(modality)?.context, let target = contexts.attemptTarget(of: id) else { return nil }
        let (serial, uid, applicant) = (target.serial, target.user, target.applicant)
        // A match of a label the user no longer has enrolled is a no-match.
        let (enrolledMatch, lockedOut) = withUserRecord(uid) { user in
            guard case .match(let label) = attempt else { return (false, false) }
            return (user.profile.isEnrolled(modality, label: label), user.ledger.isBiometryLockedOut(for: applicant))
        }
        func saving(_ outcome: SavingAttempt.Outcome) -> SavingAttempt {
            SavingAttempt(outcome: outcome, modality: modality, context: id, serial: serial, user: uid, applicant: applicant,
                          owner: target.owner, commit: submitLedger(of: uid))
        }
        switch attempt {
        case .match where enrolledMatch:
            guard !lockedOut else {
                handle(.biometryLockedOut, on: id)
                return nil
            }
            do throws(LocalAuthError) { try requireSavedLedger(of: uid) } catch {
                finish(id, .failure(error))
                return nil
            }
            let unlockAt = target.isUnlock ? environment.clock.now() : nil
            let changed = updateUser(uid) { record in
                let before = record.ledger
                record.ledger.recordBiometricMatch(unlockAt: unlockAt, by: applicant)
                return record.ledger != before
            }
            // The saved ledger is the one in memory (requireSavedLedger above): a match that changed
            // nothing (no failures to clear, not an unlock) has nothing to save.
            if changed == true { return saving(.matched) }
            handle(.matched(modality), on: id)
        case .match, .noMatch:
            do throws(LocalAuthError) { try requireSavedLedger(of: uid) } catch {
                finish(id, .failure(error))
                return nil
            }
            let maxFailures = configuration.biometryMaxFailures
            // Loaded by `withUserRecord(uid)` above.
            let now = environment.clock.now()
            let lockedNow = updateUser(uid) { $0.ledger.recordBiometricFailure(maxFailures: maxFailures, by: applicant, at: now) }!
            return saving(.noMatch(lockedNow: lockedNow))
        case .retry(let reason):
            handle(.retry(modality, reason), on: id)
        case .disconnected:
            handle(.sensorLost(modality), on: id)
        }
        return nil
    }

    /// Reports a counted attempt once the write that includes it ended, to its evaluation if that
    /// still runs. A no-match is reported only when saved (else the evaluation ends with the
    /// error); a match only lowers counts, so it is reported either way (the stricter saved
    /// counts stay in force on disk).
    /// The sensor's next attempt may apply afterwards (see ``SensorBoard/endSaving(on:)``).
    func reportSaved(_ saving: SavingAttempt) async {
        let id = saving.context, uid = saving.user
        var unsaved: LocalAuthError?
        do throws(LocalAuthError) { try settleLedgerSave(of: uid, await saving.commit.outcome()) } catch { unsaved = error }
        for resume in sensors.endSaving(on: saving.modality) { resume() }
        let stillRunning = contexts[id]?.evaluation?.serial == saving.serial
        switch saving.outcome {
        case .matched:
            if stillRunning { handle(.matched(saving.modality), on: id) }
        case .noMatch(let lockedNow):
            if lockedNow {
                let whom = saving.applicant.map { " for uid \($0) (another user acting as this one)" } ?? ""
                recordAudit(AuditEntry(.biometryLockout, severity: .notice, user: uid, client: saving.owner.rawValue,
                                                    result: "locked", message: "Biometry locked\(whom) after \(configuration.biometryMaxFailures) consecutive failed attempts."))
            }
            if let unsaved, stillRunning {
                finish(id, .failure(unsaved))
            } else if stillRunning {
                handle(.noMatch(saving.modality, lockedOut: lockedNow), on: id)
            }
            if lockedNow {
                for (other, otherRecord) in contexts where other != id && otherRecord.user == uid && otherRecord.evaluation != nil
                    && (saving.applicant == nil || otherRecord.foreignApplicant == saving.applicant) {
                    handle(.biometryLockedOut, on: other)
                }
            }
        }
    }

    /// Announces state changes and listening prompts, and the next deadline.
    private func publishChanges() {
        // Only after settleRoundLimit rounds can contexts still be dirty here.
        if !dirty.isEmpty { _ = stepSensors() }
        for id in pendingPublication where !sensors.isSaving(id) {
            // Read in place: the record is copied out only when there is something to announce.
            guard let (phase, before) = contexts.publication(of: id) else { continue }
            let now = ContextRecord.Published(state: state(of: id, phase: phase), listening: listening(id))
            guard now != before, let record = contexts[id] else { continue }
            contexts[id]?.published = now
            if now.state != before.state {
                environment.observer?.contextChanged(snapshot(record, state: now.state))
            }
            guard let evaluation = record.evaluation else { continue }
            if now.state == .biometry, now.listening != before.listening {
                show(record.visible(PromptText.listening(now.listening, reason: evaluation.reason, kind: evaluation.machine.kind, options: record.options, reader: PromptText.Reader(record.options, appPasscodeEntry: configuration.appPasscodeEntry)),
                                    reason: evaluation.reason), on: id)
            } else if now.state == .waiting, before.state != .waiting, heldBackSensors(id).isEmpty {
                show(record.visible(PromptText.waiting(for: evaluation.machine.wantedSensors, options: record.options, reader: PromptText.Reader(record.options, appPasscodeEntry: configuration.appPasscodeEntry)), reason: evaluation.reason), on: id)
            }
        }
        // Usually nothing is being saved: emptied in place, a small table serves the next settle
        // (a new set each time cost ~2 000 instructions a cycle) and a large one is given back.
        if !sensors.isSaving {
            pendingPublication.removeAll(keepingCapacity: pendingPublication.capacity <= 64)
        } else {
            pendingPublication = pendingPublication.filter(sensors.isSaving)
        }
        let turnLength = configuration.sensorTurnLength
        var deadline = contexts.nextDeadline
        if let turn = sensors.nextTurnDeadline(length: turnLength), deadline.map({ turn.seconds < $0.seconds }) ?? true {
            deadline = turn
        }
        if deadline != publishedDeadline {
            publishedDeadline = deadline
            environment.observer?.nextDeadlineChanged(deadline)
        }
    }
}
