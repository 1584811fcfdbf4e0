// SPDX-License-Identifier: Apache-2.0
/// Who holds one sensor, among the evaluations that want it, and whom the sensor is armed for:
/// a pure state machine, owned by the engine's actor. The engine feeds it ``Event``s through
/// ``apply(_:at:turnLength:)`` and performs the ``Action``s it returns (tells evaluations the
/// sensor is lost, disarms, arms); it decides nothing about the sensor itself.
///
/// The sensor sharing rule:
/// 1. Standing first. A claim from the foreground session beats one without session
///    information, which beats one from a background or remote session. A strictly better claim
///    takes the sensor from the holder at once; the holder's evaluation waits, nothing is counted.
/// 2. Users take turns. Every user with claims has one place in line, however many evaluations
///    it runs; its other claims wait behind its oldest. Among claims of one standing the user
///    whose place comes first holds the sensor.
/// 3. A turn ends when the holding claim ends (the evaluation finished, was cancelled, or no
///    longer wants the sensor) or when it has lasted `turnLength` seconds while another user
///    waits at the same standing. The user then goes to the back of the line; a user whose
///    claims all ended and who claims again also starts at the back, so re-arming gains nothing.
///
/// A standing only ranks claims against each other, so a claim on a sensor nobody else claims
/// may come without one (reading it asks logind, on every evaluation). Before a second claim
/// joins, the engine gives the first its standing as it is then (``Event/standing(_:_:)``, for
/// each of ``claimsWithoutStanding``): whenever two or more claims are ranked, all have one.
struct SensorArbiter: Sendable {
    /// What happened to the sensor's claims.
    enum Event: Sendable, Hashable {
        /// An evaluation wants the sensor; claiming twice does nothing. The standing may be nil
        /// only when no other evaluation claims the sensor.
        case claim(ContextID, user: UInt32, standing: SessionStanding?)
        /// The standing of a claim that came without one; ignored for any other context.
        case standing(ContextID, SessionStanding)
        /// An evaluation no longer wants it (ended, cancelled, or moved on).
        case release(ContextID)
        /// The deadline of ``turnDeadline(length:)`` may have passed.
        case turnMayBeDue
        /// The sensor is gone (disconnected, provider lost): every claim ends.
        case sensorLost
    }

    /// What the engine does, in order.
    enum Action: Sendable, Hashable {
        /// Tell each of these evaluations the sensor is lost.
        case lost([ContextID])
        /// Stop listening for this context's evaluation.
        case disarm(ContextID)
        /// Start listening for this context's evaluation.
        case arm(ContextID)
    }

    struct Claim: Sendable, Hashable {
        let context: ContextID
        let user: UInt32
        /// nil only while this is the sensor's one claim.
        var standing: SessionStanding?
        /// Arrival order, to keep one user's claims first in, first out.
        let arrival: UInt64

        /// The standing claims are ranked by. A claim without one is alone, so the
        /// `unknown` put in its place is never compared with another claim's.
        var rankedStanding: SessionStanding { standing ?? .unknown }
    }

    private var claims: [ContextID: Claim] = [:]
    /// Per user with claims: its place in line, smaller first.
    private var places: [UInt32: UInt64] = [:]
    private var lastNumber: UInt64 = 0
    /// The claim the sensor serves; nil when nobody claims it.
    private(set) var holder: ContextID?
    /// When the holder's turn began: when it got the sensor or, if later, when another user began to wait.
    private var turnStart: BootTime?
    /// The context the sensor is armed for, as the actions so far made it.
    private(set) var armed: ContextID?

    /// Applies `events` in order, then returns what brings the sensor in line: the lost claims
    /// told, the sensor disarmed from a context that no longer holds it and armed for the holder.
    /// Nothing when nothing changed.
    mutating func apply(_ events: [Event], at now: BootTime, turnLength: Double) -> [Action] {
        var actions: [Action] = []
        for event in events {
            switch event {
            case .claim(let context, let user, let standing): claim(context, user: user, standing: standing, at: now)
            case .standing(let context, let standing):
                if claims[context]?.standing == nil { claims[context]?.standing = standing }
            case .release(let context): release(context, at: now)
            case .turnMayBeDue: endTurn(ifDueAt: now, length: turnLength)
            case .sensorLost:
                let lost = claims.keys.sorted { claims[$0]!.arrival < claims[$1]!.arrival }
                guard !lost.isEmpty else { continue }
                actions.append(.lost(lost))
                let armed = self.armed
                self = SensorArbiter()
                self.armed = armed
            }
        }
        if armed != holder {
            if let armed { actions.append(.disarm(armed)) }
            if let holder { actions.append(.arm(holder)) }
            armed = holder
        }
        return actions
    }

    /// The contexts that claim the sensor.
    var claimants: [ContextID] { Array(claims.keys) }

    /// Whether any context claims the sensor.
    var hasClaims: Bool { !claims.isEmpty }

    /// The claims that came without a standing (at most one, the sensor's only claim).
    var claimsWithoutStanding: [ContextID] { claims.values.filter { $0.standing == nil }.map(\.context) }

    func contains(_ context: ContextID) -> Bool { claims[context] != nil }

    /// Adds a claim; claiming twice does nothing.
    mutating func claim(_ context: ContextID, user: UInt32, standing: SessionStanding?, at now: BootTime) {
        guard claims[context] == nil else { return }
        assert(claims.values.allSatisfy { $0.standing != nil } && (standing != nil || claims.isEmpty),
               "A claim joins a sensor's other claims with its standing, and after theirs")
        let wasContested = isContested
        if places[user] == nil { places[user] = nextNumber() }
        claims[context] = Claim(context: context, user: user, standing: standing, arrival: nextNumber())
        chooseHolder(at: now)
        if !wasContested && isContested { turnStart = now }
    }

    /// Removes a claim; a user whose holding claim ends goes to the back of the line.
    mutating func release(_ context: ContextID, at now: BootTime) {
        guard let claim = claims.removeValue(forKey: context) else { return }
        if !claims.values.contains(where: { $0.user == claim.user }) {
            places[claim.user] = nil
        } else if holder == context {
            places[claim.user] = nextNumber()
        }
        if holder == context { holder = nil }
        chooseHolder(at: now)
    }

    /// When the holder's turn runs out; nil when no other user waits at its standing or turns are unlimited (`length` 0).
    func turnDeadline(length: Double) -> BootTime? {
        guard length > 0, let turnStart, isContested else { return nil }
        return turnStart.advanced(by: length)
    }

    /// Ends the holder's turn when it has run out, sending its user to the back of the line.
    mutating func endTurn(ifDueAt now: BootTime, length: Double) {
        guard let deadline = turnDeadline(length: length), deadline.remaining(from: now) == 0,
              let holder, let user = claims[holder]?.user else { return }
        places[user] = nextNumber()
        self.holder = nil
        chooseHolder(at: now)
    }

    /// Whether another user waits at the holder's standing (or better, briefly, before it preempts).
    private var isContested: Bool {
        guard let holder, let current = claims[holder] else { return false }
        return claims.values.contains { $0.user != current.user && $0.rankedStanding <= current.rankedStanding }
    }

    /// Keeps the holder unless a strictly better standing waits; otherwise picks the first claim by
    /// standing, then the user's place in line, then arrival.
    private mutating func chooseHolder(at now: BootTime) {
        let best = claims.values.min { rank($0) < rank($1) }
        if let holder, let current = claims[holder], let best, best.rankedStanding >= current.rankedStanding { return }
        holder = best?.context
        turnStart = best == nil ? nil : now
    }

    private func rank(_ claim: Claim) -> (Int, UInt64, UInt64) {
        (claim.rankedStanding.rawValue, places[claim.user] ?? .max, claim.arrival)
    }

    private mutating func nextNumber() -> UInt64 {
        lastNumber += 1
        return lastNumber
    }
}
