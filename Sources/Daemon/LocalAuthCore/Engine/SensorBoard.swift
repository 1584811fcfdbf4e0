// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
/// The engine's sensors: per modality, the ``SensorArbiter`` that decides who holds it, the
/// session it is armed for, and the attempt being saved with the attempts waiting behind it.
///
/// Invariants, kept by the mutating methods:
/// - at most one session is armed per sensor, and only for the context its arbiter armed it for
///   (``arm(_:for:on:)`` is refused otherwise); disarming is ``disarm(_:)``;
/// - session ids are issued once, increasing (``issueSessionID()``), and a session is armed only
///   with the newest id: an input delivered to an old session never matches the armed one;
/// - at most one attempt per sensor is being saved (``beginSaving(_:on:)`` to ``endSaving(on:)``);
///   attempts wait (``wait(on:_:)``) only while one is, and ending the save hands every waiter
///   back, in arrival order, to be resumed.
///
/// The small readers are `@inline(__always)`: a non-mutating method of a value the engine (an
/// actor) holds, called out of line, runs on a copy of the whole table.
struct SensorBoard: Sendable {
    /// A session armed for a context's evaluation.
    struct Armed: Sendable {
        let context: ContextID
        let session: SensorSession
    }

    /// Resumes an attempt waiting for the sensor's save to end.
    typealias Waiter = @Sendable () -> Void

    private var arbiters = ModalityMap<SensorArbiter>()
    private var armed = ModalityMap<Armed>()
    private var lastSessionID: UInt64 = 0
    private var saving = ModalityMap<ContextID>()
    private var waiting = ModalityMap<[Waiter]>()

    // MARK: Claims

    /// Applies claim events to the sensor's arbiter and returns what the engine must do.
    mutating func apply(_ events: [SensorArbiter.Event], on modality: BiometricModality, at now: BootTime,
                        turnLength: Double) -> [SensorArbiter.Action] {
        arbiters[modality, default: SensorArbiter()].apply(events, at: now, turnLength: turnLength)
    }

    /// Whether applying no events would change nothing: the sensor is armed for its holder, if any.
    @inline(__always) func isSettled(_ modality: BiometricModality) -> Bool {
        arbiters[modality].map { $0.armed == $0.holder } ?? true
    }

    /// Whether `id` claims the sensor.
    @inline(__always) func isClaimed(_ modality: BiometricModality, by id: ContextID) -> Bool {
        arbiters[modality]?.contains(id) ?? false
    }

    /// Whether any evaluation claims the sensor.
    @inline(__always) func hasClaims(_ modality: BiometricModality) -> Bool {
        arbiters[modality]?.hasClaims == true
    }

    /// The sensor's claims that came without a standing (``SensorArbiter/claimsWithoutStanding``).
    func claimsWithoutStanding(_ modality: BiometricModality) -> [ContextID] {
        arbiters[modality]?.claimsWithoutStanding ?? []
    }

    /// The earliest end of a sensor turn (``SensorArbiter/turnDeadline(length:)``).
    /// `mutating` only so that the engine reads it in place: a non-mutating call on the actor's
    /// board copied the whole board first.
    mutating func nextTurnDeadline(length: Double) -> BootTime? {
        var earliest: BootTime?
        // Each arbiter asked in place (a lazy sequence of them copied each one; asked every call).
        for modality in BiometricModality.allCases {
            guard let turn = arbiters[modality]?.turnDeadline(length: length) else { continue }
            earliest = earliest.map { $0.seconds <= turn.seconds ? $0 : turn } ?? turn
        }
        return earliest
    }

    // MARK: Sessions

    /// The session the sensor is armed for.
    @inline(__always) func armed(_ modality: BiometricModality) -> Armed? { armed[modality] }

    /// The sensor's armed session if its id is `session`: nil for a session no longer armed.
    @inline(__always) func armed(_ modality: BiometricModality, session: UInt64) -> Armed? {
        guard let armed = armed[modality], armed.session.id == session else { return nil }
        return armed
    }

    /// The sensors armed for `id`.
    @inline(__always) func listening(_ id: ContextID) -> BiometricModalitySet {
        var listening = BiometricModalitySet()
        for (modality, armed) in armed where armed.context == id { listening.insert(modality) }
        return listening
    }

    /// A new session id, larger than every one before.
    mutating func issueSessionID() -> UInt64 {
        lastSessionID += 1
        return lastSessionID
    }

    /// Records the sensor armed with `session` (of the newest id) for `id`, which its arbiter has
    /// just armed it for; an earlier session must have been disarmed.
    mutating func arm(_ session: SensorSession, for id: ContextID, on modality: BiometricModality) {
        precondition(session.id == lastSessionID, "A sensor is armed with the newest session id")
        precondition(arbiters[modality]?.armed == id, "A sensor is armed for the context its arbiter chose")
        precondition(armed[modality] == nil, "A sensor is disarmed before it is armed again")
        armed[modality] = Armed(context: id, session: session)
    }

    /// Forgets the sensor's armed session and returns it.
    @discardableResult
    mutating func disarm(_ modality: BiometricModality) -> Armed? {
        armed.removeValue(forKey: modality)
    }

    // MARK: Saving

    /// Whether an attempt of some sensor is being saved.
    @inline(__always) var isSaving: Bool { !saving.isEmpty }

    /// Whether the attempt of `id` is being saved (on any sensor).
    @inline(__always) func isSaving(_ id: ContextID) -> Bool {
        BiometricModality.allCases.contains { saving[$0] == id }
    }

    /// The context whose attempt on the sensor is being saved.
    @inline(__always) func saving(_ modality: BiometricModality) -> ContextID? { saving[modality] }

    /// Marks the attempt of `id` on the sensor as being saved; the sensor's next attempt waits.
    mutating func beginSaving(_ id: ContextID, on modality: BiometricModality) {
        precondition(saving[modality] == nil, "One attempt per sensor is saved at a time")
        saving[modality] = id
    }

    /// How many attempts wait for the sensor's save to end.
    @inline(__always) func waiting(on modality: BiometricModality) -> Int { waiting[modality]?.count ?? 0 }

    /// Queues an attempt behind the one being saved; `resume` is handed back by ``endSaving(on:)``.
    mutating func wait(on modality: BiometricModality, _ resume: @escaping Waiter) {
        precondition(saving[modality] != nil, "Attempts wait only while one is being saved")
        waiting[modality, default: []].append(resume)
    }

    /// The save ended: returns the waiting attempts, oldest first, for the caller to resume.
    mutating func endSaving(on modality: BiometricModality) -> [Waiter] {
        saving[modality] = nil
        return waiting.removeValue(forKey: modality) ?? []
    }
}
