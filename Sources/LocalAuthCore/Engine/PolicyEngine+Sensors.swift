// SPDX-License-Identifier: Apache-2.0
/// Sensor arbitration and biometric attempts.
///
/// Each sensor serves the evaluation its ``SensorArbiter`` chooses (foreground session first,
/// users in turn); the others wait. Claims are derived from each evaluation's wanted sensors
/// whenever a context is marked dirty.
extension PolicyEngine {
    /// Bounds ``settle()``'s loop; every round consumes a queued attempt, a lost sensor or a holder change.
    static let settleRoundLimit = 10_000

    /// Brings claims, armed sensors, queued attempts and observers up to date after a change.
    func settle() {
        for _ in 0..<Self.settleRoundLimit {
            refreshClaims()
            var progressed = false
            for modality in BiometricModality.allCases {
                guard let backend = backends[modality] else { continue }
                if !backend.isAvailable, let claimants = sensorArbiters[modality]?.claimants, !claimants.isEmpty {
                    for id in claimants { handle(.sensorLost(modality), on: id) }
                    sensorArbiters[modality] = nil
                    progressed = true
                }
                let holder = sensorArbiters[modality]?.holder
                if armedSessions[modality]?.context != holder {
                    if let armed = armedSessions.removeValue(forKey: modality) {
                        backend.disarm(armed.session.id)
                        dirty.insert(armed.context)
                    }
                    if let holder { arm(backend, for: holder) }
                    progressed = true
                }
                if let armed = armedSessions[modality], let attempt = backend.takeQueuedAttempt(for: armed.session) {
                    handleAttempt(attempt, on: modality)
                    progressed = true
                }
            }
            if !progressed { break }
        }
        publishChanges()
    }

    /// Called by a backend (through its session) with an attempt; false when that session is no longer armed.
    func sensorReported(_ attempt: AttemptEvent, on modality: BiometricModality, session: UInt64) -> Bool {
        guard armedSessions[modality]?.session.id == session else { return false }
        handleAttempt(attempt, on: modality)
        settle()
        return true
    }

    private func refreshClaims() {
        guard !dirty.isEmpty else { return }
        let now = environment.clock.uptime()
        var newcomers: [BiometricModality: [(serial: UInt64, id: ContextID)]] = [:]
        for id in dirty {
            let wanted = contexts[id]?.evaluation?.machine.wantedSensors ?? []
            for modality in BiometricModality.allCases {
                let claimed = sensorArbiters[modality]?.contains(id) ?? false
                if claimed && !wanted.contains(modality) {
                    sensorArbiters[modality]?.release(id, at: now)
                } else if !claimed && wanted.contains(modality), let serial = contexts[id]?.evaluation?.serial {
                    newcomers[modality, default: []].append((serial, id))
                }
            }
        }
        for (modality, list) in newcomers {
            for (_, id) in list.sorted(by: { $0.serial < $1.serial }) {
                guard let record = contexts[id] else { continue }
                let standing = environment.sessions?.standing(ofProcess: clientPIDs[record.owner], user: record.user) ?? .unknown
                sensorArbiters[modality, default: SensorArbiter()].claim(id, user: record.user, standing: standing, at: now)
            }
        }
        for id in dirty where contexts[id] != nil { pendingPublication.insert(id) }
        dirty = []
    }

    private func arm(_ backend: any BiometricBackend, for id: ContextID) {
        guard let record = contexts[id] else { return }
        let profile = userRecord(record.user).profile
        lastSessionID += 1
        let sessionID = lastSessionID
        let modality = backend.modality
        let session = SensorSession(
            id: sessionID, user: record.user, enrolledLabels: profile.labels(of: modality),
            templates: profile.templates(of: modality), requireAttention: profile.requireAttention,
            deliver: { [weak self] attempt in
                await self?.sensorReported(attempt, on: modality, session: sessionID) ?? false
            })
        armedSessions[modality] = (id, session)
        backend.arm(session)
        dirty.insert(id)
    }

    /// Applies one attempt to the evaluation holding `modality`, counting it in the ledger first.
    private func handleAttempt(_ attempt: AttemptEvent, on modality: BiometricModality) {
        guard let armed = armedSessions[modality], let record = contexts[armed.context] else { return }
        let id = record.id, uid = record.user
        let user = userRecord(uid)
        switch attempt {
        case .match(let label) where user.profile.labels(of: modality).contains(label):
            guard !user.ledger.biometryLockedOut else {
                handle(.biometryLockedOut, on: id)
                return
            }
            do throws(LocalAuthError) { try requireSavedLedger(of: uid) } catch {
                finish(id, .failure(error))
                return
            }
            users[uid]?.ledger.recordBiometricMatch(unlockAt: record.options.isUnlockContext ? environment.clock.now() : nil)
            // A match only lowers counts: if it cannot be saved, the stricter saved ones stay in force on disk.
            try? persistLedger(of: uid)
            handle(.matched(modality), on: id)
        case .match, .noMatch:
            do throws(LocalAuthError) { try requireSavedLedger(of: uid) } catch {
                finish(id, .failure(error))
                return
            }
            // A match of a label the user no longer has enrolled is a no-match.
            let lockedNow = users[uid]!.ledger.recordBiometricFailure(maxFailures: configuration.biometryMaxFailures)
            var unsaved: LocalAuthError?
            do throws(LocalAuthError) { try persistLedger(of: uid) } catch { unsaved = error }
            if lockedNow {
                recordAudit(AuditEntry(.biometryLockout, severity: .notice, user: uid, client: record.owner.rawValue,
                                                    result: "locked", message: "Biometry locked after \(configuration.biometryMaxFailures) consecutive failed attempts."))
            }
            // A no-match that was not saved is not reported as one: the evaluation ends with the error.
            if let unsaved {
                finish(id, .failure(unsaved))
            } else {
                handle(.noMatch(modality, lockedOut: lockedNow), on: id)
            }
            if lockedNow {
                for (other, otherRecord) in contexts where other != id && otherRecord.user == uid && otherRecord.evaluation != nil {
                    handle(.biometryLockedOut, on: other)
                }
            }
        case .retry(let reason):
            handle(.retry(modality, reason), on: id)
        case .disconnected:
            handle(.sensorLost(modality), on: id)
        }
    }

    /// Announces state changes and listening prompts, and the next deadline.
    private func publishChanges() {
        refreshClaims()
        for id in pendingPublication {
            guard let record = contexts[id] else { continue }
            let now = ContextRecord.Published(state: state(of: record), listening: listening(id))
            let before = record.published
            guard now != before else { continue }
            contexts[id]?.published = now
            if now.state != before.state {
                environment.observer?.contextChanged(snapshot(record, state: now.state))
            }
            guard let evaluation = record.evaluation else { continue }
            if now.state == .biometry, now.listening != before.listening {
                environment.observer?.prompt(
                    PromptText.listening(now.listening, reason: evaluation.reason, kind: evaluation.machine.kind, options: record.options),
                    context: id, owner: record.owner)
            } else if now.state == .waiting, before.state != .waiting {
                environment.observer?.prompt(PromptText.waiting(for: evaluation.machine.wantedSensors, options: record.options),
                                             context: id, owner: record.owner)
            }
        }
        pendingPublication = []
        let turnLength = configuration.sensorTurnLength
        let deadline = (contexts.values.compactMap { $0.evaluation?.deadline }
            + sensorArbiters.values.compactMap { $0.turnDeadline(length: turnLength) }).min { $0.seconds < $1.seconds }
        if deadline != publishedDeadline {
            publishedDeadline = deadline
            environment.observer?.nextDeadlineChanged(deadline)
        }
    }
}
