// SPDX-License-Identifier: Apache-2.0
/// The engine's users: the records loaded so far with what is derived from them (domain states),
/// their face decisions and how often they changed, whose changes are being saved, and whose
/// passcode is being removed.
///
/// Invariants, kept by the mutating methods:
/// - a record is loaded once (``load(_:for:)``) and then changed only through ``update(_:_:)``,
///   which reports whether it changed;
/// - a cached domain state belongs to a loaded user and to its profile as it is: a change of the
///   profile drops it;
/// - a user's face decision changes of the last minute are at most those recorded at most 60 s
///   before the time asked (``consentChanges(of:at:)`` forgets older ones);
/// - one change per user is saved at a time: ``takeSaveTurn(of:)`` gives the turn to one, the
///   others wait in arrival order, and ``passSaveTurn(of:)`` hands it to the next; a user nobody
///   holds the turn of has no entry;
/// - a passcode removal count is positive while one runs, and absent otherwise.
///
/// The small readers are `@inline(__always)`: a non-mutating method of a value the engine (an
/// actor) holds, called out of line, runs on a copy of the whole table.
struct UserTable: Sendable {
    /// Resumes a change waiting for the user's save turn.
    typealias Waiter = @Sendable () -> Void

    /// How far back face decision changes are counted, in seconds.
    static let consentChangeWindow = 60.0

    private var records: [UInt32: UserRecord] = [:]
    private var domainStates: [UInt32: [UInt8]] = [:]
    private var faceConsents: [UInt32: FaceConsents] = [:]
    /// Uptime seconds of each user's recent face decision changes.
    private var consentChanges: [UInt32: [Double]] = [:]
    private var saveTurns: [UInt32: [Waiter]] = [:]
    private var passcodeRemovals: [UInt32: Int] = [:]

    // MARK: Records

    /// The user's record, if loaded.
    @inline(__always) subscript(uid: UInt32) -> UserRecord? { records[uid] }

    /// Whether a loaded user's ledger has changes not yet saved; nil if the user is not loaded.
    /// `mutating` only so that the engine reads it in place, without copying the table.
    mutating func isLedgerUnsaved(of uid: UInt32) -> Bool? {
        guard let index = records.index(forKey: uid) else { return nil }
        return Self.inPlace(&records.values[index]) { $0.ledgerUnsaved }
    }

    /// `body` on a loaded user's record where it is stored, without copying it; nil, and `body`
    /// not run, if the user is not loaded. `mutating` only for the in-place access.
    mutating func read<T>(_ uid: UInt32, _ body: (UserRecord) -> T) -> T? {
        guard let index = records.index(forKey: uid) else { return nil }
        return Self.inPlace(&records.values[index]) { body($0) }
    }

    /// Keeps a user's record as first loaded; a user already loaded keeps the record it has.
    mutating func load(_ record: UserRecord, for uid: UInt32) {
        guard records[uid] == nil else { return }
        records[uid] = record
    }

    /// Changes a loaded user's record in place; nil, and `change` not run, if the user is not
    /// loaded. `changed` is the record after the change when it differs from before. A changed
    /// profile drops the cached domain state. Only this user's record is compared.
    mutating func update<Value>(_ uid: UInt32, _ change: (inout UserRecord) -> Value) -> (value: Value, changed: UserRecord?)? {
        guard let index = records.index(forKey: uid) else { return nil }
        let (value, changed, profileChanged) = Self.inPlace(&records.values[index]) { record in
            let before = record
            let value = change(&record)
            return record == before ? (value, nil, false) : (value, record, record.profile != before.profile)
        }
        if profileChanged { domainStates[uid] = nil }
        return (value, changed)
    }

    /// `body` on a record where it is stored: a record read through a dictionary's getter is
    /// copied first, a retain for each of the ~20 references it holds.
    @inline(__always)
    private static func inPlace<T>(_ record: inout UserRecord, _ body: (inout UserRecord) -> T) -> T {
        body(&record)
    }

    /// The user's cached domain state.
    @inline(__always) func domainState(of uid: UInt32) -> [UInt8]? { domainStates[uid] }

    /// Caches the domain state of a loaded user's profile as it is now.
    mutating func cacheDomainState(_ state: [UInt8], of uid: UInt32) {
        guard records[uid] != nil else { return }
        domainStates[uid] = state
    }

    // MARK: Face decisions

    /// The user's face decisions, if read.
    @inline(__always) func consents(of uid: UInt32) -> FaceConsents? { faceConsents[uid] }

    /// Keeps the user's face decisions as read or saved.
    mutating func setConsents(_ consents: FaceConsents, of uid: UInt32) {
        faceConsents[uid] = consents
    }

    /// How many face decisions the user changed in the window before `now` (uptime seconds);
    /// older changes are forgotten.
    mutating func consentChanges(of uid: UInt32, at now: Double) -> Int {
        guard let changes = consentChanges[uid] else { return 0 }
        let recent = changes.filter { now - $0 < Self.consentChangeWindow }
        consentChanges[uid] = recent.isEmpty ? nil : recent
        return recent.count
    }

    /// Keeps the user's changed face decisions, changed at `now` (uptime seconds).
    mutating func recordConsentChange(_ consents: FaceConsents, of uid: UInt32, at now: Double) {
        faceConsents[uid] = consents
        consentChanges[uid, default: []].removeAll { now - $0 >= Self.consentChangeWindow }
        consentChanges[uid, default: []].append(now)
    }

    // MARK: Save turns

    /// Takes the user's save turn if nobody holds it: true then; false when the caller must
    /// ``waitForSaveTurn(of:_:)``.
    mutating func takeSaveTurn(of uid: UInt32) -> Bool {
        guard saveTurns[uid] == nil else { return false }
        saveTurns[uid] = []
        return true
    }

    /// How many changes wait for the user's save turn.
    @inline(__always) func waitingForSaveTurn(of uid: UInt32) -> Int { saveTurns[uid]?.count ?? 0 }

    /// Queues a change behind the user's turn; `resume` is handed back by ``passSaveTurn(of:)``
    /// when the turn is its.
    mutating func waitForSaveTurn(of uid: UInt32, _ resume: @escaping Waiter) {
        precondition(saveTurns[uid] != nil, "Only a held turn is waited for")
        saveTurns[uid]?.append(resume)
    }

    /// Ends the holder's turn: returns the next waiting change (which now holds the turn), to be
    /// resumed, or nil when none waits and nobody holds the turn any more.
    mutating func passSaveTurn(of uid: UInt32) -> Waiter? {
        guard var waiting = saveTurns[uid], !waiting.isEmpty else {
            saveTurns[uid] = nil
            return nil
        }
        let next = waiting.removeFirst()
        saveTurns[uid] = waiting
        return next
    }

    // MARK: Passcode removals

    /// Whether the user's passcode is being removed.
    @inline(__always) func isRemovingPasscode(_ uid: UInt32) -> Bool { passcodeRemovals[uid] != nil }

    mutating func beginPasscodeRemoval(of uid: UInt32) {
        passcodeRemovals[uid, default: 0] += 1
    }

    mutating func endPasscodeRemoval(of uid: UInt32) {
        guard let count = passcodeRemovals[uid] else { return }
        passcodeRemovals[uid] = count > 1 ? count - 1 : nil
    }
}
