// SPDX-License-Identifier: Apache-2.0
import Dispatch
import LocalAuthAPI
import LocalAuthCore
import LocalAuthDBus
import Synchronization

/// Turns the engine's announcements into bus traffic: `Prompt` and `PropertiesChanged` unicast to
/// the context's owner (never broadcast), `UserStateChanged` unicast to the connections of that
/// user that read their state, `Backends` changes broadcast, and a timer that wakes the engine at
/// its next deadline. Called on the engine's actor and the callers' queues; all state here is
/// behind mutexes.
final class BusObserver: EngineObserver {
    /// Where deadline timers fire: a serial queue, never `.global()` (docs/architecture.md, "Threads").
    private static let timerQueue = DispatchQueue(label: "localauthd.deadlines")
    struct TimerSlot: @unchecked Sendable {
        var source: (any DispatchSourceTimer)?
    }

    let connection: DBusConnection
    private let clock: any WallClock
    /// What each context's last `PropertiesChanged` (or none yet) left its owner knowing.
    private let published = Mutex<[ContextID: ContextSnapshot]>([:])
    private let watchers = Mutex<UserStateWatchers>(UserStateWatchers())
    /// The `Backends` value last announced; nil before the first.
    private let backends = Mutex<DBusValue?>(nil)
    /// The deadline timer; DispatchSource objects are thread-safe, the mutex guards the slot.
    private let timer = Mutex<TimerSlot>(TimerSlot())
    private let engine = Mutex<PolicyEngine?>(nil)

    init(connection: DBusConnection, clock: any WallClock) {
        self.connection = connection
        self.clock = clock
    }

    /// The engine to wake at deadlines (it is created after its observer).
    func attach(_ engine: PolicyEngine) {
        self.engine.withLock { $0 = engine }
    }

    func prompt(_ prompt: Prompt, context: ContextID, owner: ClientID) {
        try? connection.emitSignal(
            path: LocalAuthBusNames.contextPath(context.rawValue), interface: LocalAuthBusNames.contextInterface, member: "Prompt",
            arguments: [.string(prompt.kind.rawValue), .string(prompt.message)], destination: owner.rawValue)
    }

    /// Sends the properties that differ from those last announced. Invalidation sends nothing:
    /// only the owner may invalidate, and its `Invalidate` reply (or its running evaluation's
    /// `AppCancel`) already tells it; afterwards none of the context's properties can be read,
    /// so a `State` of `invalidated` would announce a value nobody can see (it cost ~40 µs of
    /// every evaluation cycle).
    func contextChanged(_ snapshot: ContextSnapshot) {
        if snapshot.state == .invalidated {
            published.withLock { $0[snapshot.id] = nil }
            return
        }
        let path = LocalAuthBusNames.contextPath(snapshot.id.rawValue)
        let before = published.withLock { published in
            defer { published[snapshot.id] = snapshot }
            return published[snapshot.id]
        }
        let changed = ContextObject.properties(of: snapshot, changedFrom: before)
        guard !changed.isEmpty else { return }
        try? connection.emitSignal(
            path: path, interface: DBusPropertyRequest.interface, member: "PropertiesChanged",
            arguments: [.string(LocalAuthBusNames.contextInterface), .vardict(changed), .strings([])],
            destination: snapshot.owner.rawValue)
    }

    /// Forgets what was announced to a client that left, about `contexts`, those it still had
    /// (the others were forgotten when invalidated).
    func forget(_ owner: ClientID, contexts: [ContextID]) {
        published.withLock { published in
            for id in contexts { published[id] = nil }
        }
        watchers.withLock { $0.remove(owner) }
    }

    /// From now on `client` is sent `UserStateChanged` whenever the state of `uid` (its own)
    /// changes. Called before its `GetUserState` is answered, so no change falls between the two.
    func watchUserState(_ client: ClientID, uid: UInt32) {
        watchers.withLock { $0.add(client, uid: uid) }
    }

    func userStateChanged(_ uid: UInt32, _ state: UserState) {
        let value = DBusValue.vardict(ManagerObject.encode(state))
        let recipients = watchers.withLock { $0.recipients(of: uid, value) }
        for client in recipients {
            try? connection.emitSignal(path: LocalAuthBusNames.managerPath, interface: LocalAuthBusNames.managerInterface,
                                       member: "UserStateChanged", arguments: [value], destination: client.rawValue)
        }
    }

    /// Broadcasts `PropertiesChanged` for the Manager's `Backends` when `value` differs from the
    /// last announced. Everyone may read `Backends`, so everyone may see it change.
    func backendsChanged(_ value: DBusValue) {
        let changed = backends.withLock { last in
            defer { last = value }
            return last != value
        }
        guard changed else { return }
        try? connection.emitPropertiesChanged(path: LocalAuthBusNames.managerPath, interface: LocalAuthBusNames.managerInterface,
                                              changed: ["Backends": value])
    }

    /// Arms a timer on Dispatch's monotonic clock, which setting the date does not move either.
    /// It stops while the machine sleeps, so after a sleep the engine is woken late, never early.
    func nextDeadlineChanged(_ deadline: BootTime?) {
        let engine = self.engine.withLock { $0 }
        let replacement: (any DispatchSourceTimer)? = deadline.map { deadline in
            let source = DispatchSource.makeTimerSource(queue: Self.timerQueue)
            let delay = deadline.remaining(from: clock.uptime())
            source.schedule(deadline: .now() + .milliseconds(Int((delay * 1000).rounded(.up))), leeway: .milliseconds(50))
            source.setEventHandler { Task { await engine?.handleDeadlines() } }
            source.resume()
            return source
        }
        let slot = TimerSlot(source: replacement)
        let previous = timer.withLock { current in
            defer { current = slot }
            return current
        }
        previous.source?.cancel()
    }
}
