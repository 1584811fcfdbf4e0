// SPDX-License-Identifier: Apache-2.0
/// The engine's contexts: the live records, what each client and each user holds, the
/// invalidated contexts still remembered, and the running evaluations' deadlines.
///
/// Invariants, kept by the mutating methods (the subscript changes a live record's fields and
/// cannot add or remove one):
/// - every live context is in its owner's list once, oldest first; a client without live
///   contexts has no list;
/// - ``liveCount(ofUser:)`` is the number of live contexts whose ``ContextRecord/ownerUID`` is
///   that uid (no zero entries kept);
/// - an invalidated context is never live, is remembered under the client that invalidated it,
///   and at most ``keptPerClient`` are remembered per client (the oldest is forgotten first);
///   a client that leaves takes its remembered ones with it;
/// - a deadline is kept only for a live context whose evaluation runs (``beginEvaluation(_:on:deadline:)``
///   to ``endEvaluation(of:)``);
/// - a new id (``newID(drawing:)``) is in 1 ..< 2^53 and neither live nor remembered.
///
/// The records live in `storage`, in slots reused after a removal, found through `slots`: the
/// subscript reads a record's fields and changes them in place (`contexts[id]?.evaluation`)
/// without copying the whole record, which a dictionary of records would do on every read.
///
/// The small readers are `@inline(__always)`: a non-mutating method of a value the engine (an
/// actor) holds, called out of line, runs on a copy of the whole table.
struct ContextTable: Sendable {
    /// Where each live context's record is in `storage`.
    private var slots: [ContextID: Int] = [:]
    /// The live records; nil in a free slot (listed in `freeSlots`).
    private var storage: [ContextRecord?] = []
    private var freeSlots: [Int] = []
    private var liveByClient: [ClientID: [ContextID]] = [:]
    private var liveByUser: [UInt32: Int] = [:]
    private var invalidatedOwners: [ContextID: ClientID] = [:]
    private var invalidatedByClient: [ClientID: [ContextID]] = [:]
    /// On the boot clock so that setting the date cannot move them; kept apart from the records
    /// so that finding the next deadline walks the running evaluations, not every context.
    private var deadlines: [ContextID: BootTime] = [:]
    private var spareNumbers: [UInt64] = []
    /// Invalidated contexts remembered per client (to answer invalidContext).
    let keptPerClient: Int

    init(keptPerClient: Int) {
        self.keptPerClient = keptPerClient
    }

    @inline(__always) var count: Int { slots.count }
    @inline(__always) var isEmpty: Bool { slots.isEmpty }
    var values: [ContextRecord] { storage.compactMap { $0 } }

    /// A live context. Setting changes its fields in place; adding or removing one through the
    /// subscript is a programming error (``insert(_:)``, ``invalidate(_:)``, ``removeClient(_:)``).
    subscript(id: ContextID) -> ContextRecord? {
        // Borrowed, not returned: reading one field of a record copies that field only. Both
        // accessors are inlined: an accessor coroutine called out of line allocated its frame on
        // the heap at every use.
        @inline(__always) _read {
            if let slot = slots[id] { yield storage[slot] } else { yield nil }
        }
        @inline(__always) _modify {
            if let slot = slots[id] {
                yield &storage[slot]
                precondition(storage[slot] != nil, "Contexts are removed only through ContextTable's methods")
            } else {
                var absent: ContextRecord?
                yield &absent
                precondition(absent == nil, "Contexts are added only through ContextTable's methods")
            }
        }
    }

    /// Changes several fields of a live context's record with one lookup (the subscript looks the
    /// context up, and runs its accessor, for each); nothing if `id` is not live.
    @inline(__always) mutating func update(_ id: ContextID, _ change: (inout ContextRecord) -> Void) {
        guard let slot = slots[id] else { return }
        change(&storage[slot]!)
    }

    /// Whether `id` is live; unlike `self[id] != nil`, without copying its record.
    @inline(__always) func contains(_ id: ContextID) -> Bool { slots[id] != nil }

    /// A live context's running evaluation, read from its record in place (the sensor rounds ask
    /// for it several times a call).
    @inline(__always) func evaluation(of id: ContextID) -> RunningEvaluation? {
        guard let slot = slots[id] else { return nil }
        return storage[slot]?.evaluation
    }

    /// Whether `id` is live and evaluating, read in place.
    @inline(__always) func isEvaluating(_ id: ContextID) -> Bool {
        guard let slot = slots[id] else { return false }
        return storage[slot]?.evaluation != nil
    }

    /// A live context's evaluation phase (nil when none runs) and what observers last saw of it,
    /// read in place.
    @inline(__always) func publication(of id: ContextID) -> (phase: Evaluation.Phase?, published: ContextRecord.Published)? {
        guard let slot = slots[id], let published = storage[slot]?.published else { return nil }
        return (storage[slot]?.evaluation?.machine.phase, published)
    }

    /// Who created a live context and whom it authenticates, read in place.
    @inline(__always) func ownerAndUser(of id: ContextID) -> (owner: ClientID, user: UInt32)? {
        guard let slot = slots[id], let owner = storage[slot]?.owner, let user = storage[slot]?.user else { return nil }
        return (owner, user)
    }

    /// What an attempt on a sensor armed for `id` needs of it, read in place; nil unless `id` is
    /// live and evaluating.
    @inline(__always) func attemptTarget(of id: ContextID)
        -> (serial: UInt64, user: UInt32, applicant: UInt32?, owner: ClientID, isUnlock: Bool)? {
        guard let slot = slots[id], let serial = storage[slot]?.evaluation?.serial, let user = storage[slot]?.user,
              let owner = storage[slot]?.owner, let isUnlock = storage[slot]?.options.isUnlockContext else { return nil }
        return (serial, user, storage[slot]?.foreignApplicant, owner, isUnlock)
    }

    /// The client's live contexts, oldest first.
    @inline(__always) func live(of client: ClientID) -> [ContextID] { liveByClient[client] ?? [] }

    /// How many live contexts `client` holds.
    @inline(__always) func liveCount(of client: ClientID) -> Int { liveByClient[client]?.count ?? 0 }

    /// How many live contexts the connections of `uid` created.
    @inline(__always) func liveCount(ofUser uid: UInt32) -> Int { liveByUser[uid] ?? 0 }

    /// Whether `client` invalidated `id` and it is still remembered.
    @inline(__always) func isInvalidated(_ id: ContextID, by client: ClientID) -> Bool { invalidatedOwners[id] == client }

    /// How many invalidated contexts of `client` are remembered.
    @inline(__always) func invalidatedCount(of client: ClientID) -> Int { invalidatedByClient[client]?.count ?? 0 }

    /// An unguessable context number (1 ..< 2^53, exact in every client's number type), unique
    /// among live and remembered contexts: a counter would let one user count and name others'
    /// contexts. `draw(n)` gives `n` random numbers; 64 are drawn at a time so that a context
    /// costs a fraction of a system call.
    mutating func newID(drawing draw: (Int) -> [UInt64]) -> ContextID {
        while true {
            if spareNumbers.isEmpty { spareNumbers = draw(64) }
            let id = ContextID(spareNumbers.removeLast() & (1 << 53 - 1))
            if id.rawValue != 0, slots[id] == nil, invalidatedOwners[id] == nil { return id }
        }
    }

    /// Adds a new context; its id comes from ``newID(drawing:)``.
    mutating func insert(_ record: ContextRecord) {
        precondition(slots[record.id] == nil && invalidatedOwners[record.id] == nil, "A context id is used once")
        if let slot = freeSlots.popLast() {
            storage[slot] = record
            slots[record.id] = slot
        } else {
            slots[record.id] = storage.count
            storage.append(record)
        }
        liveByClient[record.owner, default: []].append(record.id)
        liveByUser[record.ownerUID, default: 0] += 1
    }

    /// Removes a live context and remembers it as invalidated by its owner, forgetting the
    /// owner's oldest remembered one beyond ``keptPerClient``. nil when `id` is not live.
    @discardableResult
    mutating func invalidate(_ id: ContextID) -> ContextRecord? {
        guard let record = take(id) else { return nil }
        deadlines[id] = nil
        let owner = record.owner
        // Each client's entry is found once (a bus name is hashed at every lookup).
        if let index = liveByClient.index(forKey: owner) {
            liveByClient.values[index].removeAll { $0 == id }
            if liveByClient.values[index].isEmpty { liveByClient.remove(at: index) }
        }
        countRemoval(of: record)
        invalidatedOwners[id] = owner
        if let forgotten = Self.remember(id, in: &invalidatedByClient[owner, default: []], keeping: keptPerClient) {
            invalidatedOwners[forgotten] = nil
        }
        shrinkIfSparse()
        return record
    }

    /// Appends `id` to a client's remembered contexts; returns the oldest when that makes more than `kept`.
    private static func remember(_ id: ContextID, in list: inout [ContextID], keeping kept: Int) -> ContextID? {
        list.append(id)
        return list.count > kept ? list.removeFirst() : nil
    }

    /// The client left: removes its live contexts (returned, oldest first) and forgets the ones it
    /// invalidated. Costs what the client held, however many others hold.
    mutating func removeClient(_ client: ClientID) -> [ContextRecord] {
        let leaving = liveByClient.removeValue(forKey: client) ?? []
        var removed: [ContextRecord] = []
        removed.reserveCapacity(leaving.count)
        for id in leaving {
            guard let record = take(id) else { continue }
            deadlines[id] = nil
            countRemoval(of: record)
            removed.append(record)
        }
        for id in invalidatedByClient.removeValue(forKey: client) ?? [] {
            invalidatedOwners[id] = nil
        }
        shrinkIfSparse()
        return removed
    }

    /// Removes a live record from its slot, which becomes free.
    private mutating func take(_ id: ContextID) -> ContextRecord? {
        guard let slot = slots.removeValue(forKey: id) else { return nil }
        freeSlots.append(slot)
        return storage[slot].take()
    }

    private mutating func countRemoval(of record: ContextRecord) {
        guard let index = liveByUser.index(forKey: record.ownerUID) else { return }
        liveByUser.values[index] -= 1
        if liveByUser.values[index] == 0 { liveByUser.remove(at: index) }
    }

    /// A dictionary and an array keep their capacity when emptied: once the table is mostly empty
    /// after many contexts came and went, the records are packed into storage sized for what is
    /// left (amortized: at most once per quartering), so 10 000 contexts that came and went hold
    /// no 10 000 slots.
    private mutating func shrinkIfSparse() {
        guard storage.count > 1024, slots.count < storage.count / 4 else { return }
        var packed: [ContextRecord?] = []
        packed.reserveCapacity(slots.count)
        var moved = [ContextID: Int](minimumCapacity: slots.count)
        for (id, slot) in slots {
            moved[id] = packed.count
            packed.append(storage[slot].take())
        }
        storage = packed
        slots = moved
        freeSlots = []
    }

    // MARK: Evaluations

    /// Starts `evaluation` on a live context, ending at `deadline` (nil: no timeout).
    mutating func beginEvaluation(_ evaluation: RunningEvaluation, on id: ContextID, deadline: BootTime?) {
        guard let slot = slots[id] else { return }
        storage[slot]?.evaluation = evaluation
        deadlines[id] = deadline
    }

    /// Ends the context's evaluation and its deadline; returns it, nil when none ran.
    @discardableResult
    mutating func endEvaluation(of id: ContextID) -> RunningEvaluation? {
        guard let slot = slots[id], let evaluation = storage[slot]?.evaluation else { return nil }
        storage[slot]?.evaluation = nil
        deadlines[id] = nil
        return evaluation
    }

    /// The earliest deadline of the running evaluations.
    /// `mutating` only so that the engine reads it in place: a non-mutating call on the actor's
    /// table copied the whole table first.
    var nextDeadline: BootTime? {
        mutating get { deadlines.values.min { $0.seconds < $1.seconds } }
    }

    /// The contexts whose deadline is at or before `now`.
    func expired(at now: BootTime) -> [ContextID] {
        deadlines.compactMap { $0.value.remaining(from: now) == 0 ? $0.key : nil }
    }
}

extension ContextTable: Sequence {
    struct Iterator: IteratorProtocol {
        fileprivate var slots: Dictionary<ContextID, Int>.Iterator
        fileprivate let storage: [ContextRecord?]

        mutating func next() -> (key: ContextID, value: ContextRecord)? {
            guard let (id, slot) = slots.next(), let record = storage[slot] else { return nil }
            return (id, record)
        }
    }

    func makeIterator() -> Iterator { Iterator(slots: slots.makeIterator(), storage: storage) }
}
