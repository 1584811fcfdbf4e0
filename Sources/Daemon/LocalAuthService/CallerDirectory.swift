// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthDBus
import LocalAuthSystem
import Synchronization

/// Who a caller is, as the bus reports it.
struct BusCaller: Sendable {
    let caller: Caller
    let credentials: DBusCredentials
    /// The app identity of the calling process (``ProcessIdentity``), or why it could not be read;
    /// looked up once per connection when it is identified: a connection's process keeps its
    /// executable and sandbox (libdbus closes the socket on exec).
    let app: Result<AppIdentity, ProcessIdentity.Unknown>
}

/// Establishes each sender's identity from the bus (`GetConnectionCredentials`, cached per
/// unique name) and runs each sender's requests one after another in arrival order, so that,
/// say, a Cancel sent right after EvaluatePolicy finds the evaluation started. Different senders
/// run concurrently. When a sender leaves the bus, its queue runs `farewell` after its last request.
///
/// Queued work is bounded per sender and per uid (`RequestQueueLimits`), calls sent without
/// expecting a reply included: the bus's pending-reply limit does not cover those, so one
/// connection could otherwise queue without end. Over a bound a call is refused with
/// `LimitsExceeded` (a no-reply call is dropped and counted); each such episode is logged once
/// when it starts and once when the sender's queue has drained to half the bound. A sender's work
/// counts for its uid from the moment the bus has told who it is (while its first request waits),
/// so before that only the per-client bound applies.
///
/// Every queue runs in `Isolation` (the daemon's engine, whose executor is the connection's loop):
/// requests are submitted from there, and a request that finds its sender's queue idle starts the
/// task that works through it with `Task.immediate`, so that it runs at once, where it was
/// submitted, until it first waits — a request that needs no waiting is read, run and answered
/// without a hop, and still in its sender's order.
final class CallerDirectory<Isolation: Actor>: Sendable {
    typealias Job = @Sendable (isolated Isolation, Result<BusCaller, DBusError>) async -> Void
    typealias Log = @Sendable (AuditEntry.Severity, String) -> Void
    typealias Usage = RequestQueueLimits.Usage

    typealias Identify = @Sendable (UInt32?) -> Result<AppIdentity, ProcessIdentity.Unknown>
    /// Asks the bus who a unique name is (`GetConnectionCredentials`), in the caller's isolation.
    typealias Credentials = nonisolated(nonsending) @Sendable (String) async throws -> DBusCredentials

    private let credentials: Credentials
    private let identify: Identify
    private let limits: RequestQueueLimits
    private let log: Log
    private let state = Mutex(State())

    /// Everything queued, guarded by `state`.
    private struct State {
        var pipelines: [String: Pipeline] = [:]
        /// Queued work of every sender whose uid is known, by uid.
        var users: [UInt32: Usage] = [:]

        /// `body` with the sender's pipeline (a new one if it has none) and the users' usage, in place.
        mutating func withPipeline<R>(of sender: String, _ body: (inout Pipeline, inout [UInt32: Usage]) -> R) -> R {
            body(&pipelines[sender, default: Pipeline(queue: SenderQueue())], &users)
        }

        /// The same for a sender that still has a pipeline; nil (and `body` not run) if it has left.
        mutating func withExistingPipeline<R>(of sender: String, _ body: (inout Pipeline, inout [UInt32: Usage]) -> R) -> R? {
            guard let index = pipelines.index(forKey: sender) else { return nil }
            return body(&pipelines.values[index], &users)
        }
    }

    private struct Pipeline {
        let queue: SenderQueue
        var usage = Usage()
        /// Set once the bus said who the sender is; from then on its work counts for that uid too.
        var uid: UInt32?
        /// Set while the sender is over a bound and until its queue drains to half of it.
        var episode: Episode?
    }

    private struct Entry {
        let job: Job
        let usage: Usage
    }

    /// One sender's queued requests and who it is, worked through in arrival order by one task at
    /// a time. The task runs only while there is work: an idle sender costs no task, and a request
    /// that finds the queue idle starts one (cheaper than waking a task parked on a stream).
    private final class SenderQueue: Sendable {
        private struct State {
            /// Taken entries are nil (their captures released at once) until the array is compacted.
            var entries: [Entry?] = []
            var head = 0
            var draining = false
            /// Once established, reused for every later request of the sender.
            var identity: BusCaller?
            /// The uid the sender's work counts for (nil if it left before it was identified).
            var countedFor: UInt32?
        }

        private let state = Mutex(State())

        /// Queues `entry`; true when no task is working through the queue (the caller starts one).
        func push(_ entry: Entry) -> Bool {
            state.withLock { state in
                state.entries.append(entry)
                defer { state.draining = true }
                return !state.draining
            }
        }

        /// The next entry, or nil (and the queue idle) when there is none.
        func next() -> Entry? {
            state.withLock { state in
                guard state.head < state.entries.count else {
                    state.entries.removeAll(keepingCapacity: state.entries.capacity <= 16)
                    state.head = 0
                    state.draining = false
                    return nil
                }
                let entry = state.entries[state.head].take()
                state.head += 1
                // A sender that never lets its queue run empty must not grow it without end.
                if state.head >= 32, state.head * 2 >= state.entries.count {
                    state.entries.removeFirst(state.head)
                    state.head = 0
                }
                return entry
            }
        }

        var identity: (caller: BusCaller?, countedFor: UInt32?) {
            state.withLock { ($0.identity, $0.countedFor) }
        }

        func identified(_ caller: BusCaller, countedFor: UInt32?) {
            state.withLock {
                $0.identity = caller
                $0.countedFor = countedFor
            }
        }
    }

    private struct Episode {
        let start = ContinuousClock.now
        var refused = 0
        var dropped = 0
        /// Whether the episode's start was logged (it waits for the sender's uid when that is not yet known).
        var announced = false
    }

    /// `identify` gives the app identity of a process id (``BusCaller/app``); a sender whose
    /// identity it cannot give is logged once, with the reason.
    convenience init(connection: DBusConnection, identify: @escaping Identify, limits: RequestQueueLimits, log: @escaping Log) {
        self.init(credentials: { try await connection.credentials(of: $0) }, identify: identify, limits: limits, log: log)
    }

    /// A directory that learns who senders are from `credentials` (the unit tests' seam: no bus).
    init(credentials: @escaping Credentials, identify: @escaping Identify, limits: RequestQueueLimits, log: @escaping Log) {
        self.credentials = credentials
        self.identify = identify
        self.limits = limits
        self.log = log
    }

    /// Queues `job` behind the sender's earlier requests; it receives the sender's identity or
    /// the reason it could not be established (then the request must be denied). `byteCount` is
    /// what the request costs while queued (its arguments' size).
    ///
    /// Returns the error to answer with instead if the sender or its uid already has as much
    /// queued as allowed; `job` is then not queued.
    func submit(from sender: String?, byteCount: Int, replyExpected: Bool, on isolation: isolated Isolation, _ job: @escaping Job) -> DBusError? {
        guard let sender else {
            Task.immediate { await job(isolation, .failure(.accessDenied("The call has no sender; connect through a message bus."))) }
            return nil
        }
        let cost = Usage(requests: 1, bytes: byteCount)
        // One call larger than a client may ever queue: refused on its own, with its size, and no
        // episode of refusals (nothing is queued, so none would end).
        guard limits.perClient.admits(cost) else {
            log(.notice, "Client \(sender) sent a call of \(byteCount) bytes, more than one client may queue (\(limits.perClient.bytes) bytes); refused.")
            return .limitsExceeded("This call's arguments (\(byteCount) bytes) are larger than one client may queue (\(limits.perClient.bytes) bytes); send less per call.")
        }
        var announcement: String?
        let admitted: SenderQueue? = state.withLock { state in
            state.withPipeline(of: sender) { pipeline, users in
                let userUsage = pipeline.uid.flatMap { users[$0] } ?? Usage()
                let fits = limits.perClient.admits(pipeline.usage + cost) && (pipeline.uid == nil || limits.perUser.admits(userUsage + cost))
                guard fits else {
                    var episode = pipeline.episode ?? Episode()
                    if replyExpected { episode.refused += 1 } else { episode.dropped += 1 }
                    if !episode.announced, let uid = pipeline.uid {
                        episode.announced = true
                        announcement = startMessage(sender: sender, uid: uid, usage: pipeline.usage, user: userUsage)
                    }
                    pipeline.episode = episode
                    return nil
                }
                pipeline.usage += cost
                if let uid = pipeline.uid { users[uid, default: Usage()] += cost }
                return pipeline.queue
            }
        }
        if let announcement { log(.warning, announcement) }
        guard let admitted else {
            return .limitsExceeded("Too many requests queued from this connection or its user; wait for replies before sending more.")
        }
        enqueue(Entry(job: job, usage: cost), on: admitted, of: sender, isolation)
        return nil
    }

    /// The sender left the bus: after its queued requests, `farewell` runs; its queue is forgotten.
    func senderLeft(_ sender: String, on isolation: isolated Isolation, farewell: @escaping @Sendable (isolated Isolation) async -> Void) {
        let pipeline = state.withLock { $0.pipelines.removeValue(forKey: sender) }
        guard let pipeline else { return }
        if let episode = pipeline.episode { log(.notice, endMessage(sender: sender, uid: pipeline.uid, episode, ending: "left the bus")) }
        enqueue(Entry(job: { isolation, _ in await farewell(isolation) }, usage: Usage()), on: pipeline.queue, of: sender, isolation)
    }

    /// Queues `entry` behind the sender's earlier requests, starting the task that works through
    /// them if none is running: at once, here, in `isolation`, until the task first waits.
    private func enqueue(_ entry: Entry, on queue: SenderQueue, of sender: String, _ isolation: isolated Isolation) {
        guard queue.push(entry) else { return }
        Task.immediate { [self] in
            while let entry = queue.next() { await run(entry, of: sender, from: queue, isolation) }
        }
    }

    /// Inlined into the queue's task: entering an async function isolated to the engine is a
    /// switch to its executor, and in Swift 6.3 each switch of a `Task.immediate` task looks up
    /// its (empty) executor preference under the task's lock — ~700 instructions a call.
    @inline(__always)
    private func run(_ entry: Entry, of sender: String, from queue: SenderQueue, _ isolation: isolated Isolation) async {
        let (known, countedFor) = queue.identity
        if let known {
            await entry.job(isolation, .success(known))
            finished(entry.usage, of: sender, uid: countedFor)
            return
        }
        do {
            let credentials = try await self.credentials(sender)
            let app = identify(credentials.pid)
            if case .failure(let unknown) = app {
                log(.warning, "Client \(sender) (uid \(credentials.uid)) could not be identified as an app: \(unknown). "
                    + "Face ID is not offered to it, and it may not register as an agent nor call methods that take the passcode.")
            }
            let caller = BusCaller(caller: Caller(client: ClientID(sender), uid: credentials.uid, pid: credentials.pid),
                                   credentials: credentials, app: app)
            let countedFor = identified(sender, as: credentials.uid) ? credentials.uid : nil
            queue.identified(caller, countedFor: countedFor)
            await entry.job(isolation, .success(caller))
            finished(entry.usage, of: sender, uid: countedFor)
        } catch {
            let reason = (error as? DBusError)?.message ?? "\(error)"
            // Not kept: a later request may succeed, but this one is denied.
            await entry.job(isolation, .failure(.accessDenied("Could not establish who is calling (\(reason)); access denied.")))
            finished(entry.usage, of: sender, uid: nil)
        }
    }

    /// From now on the sender's queued work counts for `uid` as well; an episode waiting for the
    /// uid is announced. Returns false if the sender has already left (nothing counts for `uid`).
    private func identified(_ sender: String, as uid: UInt32) -> Bool {
        let (counted, announcement): (Bool, String?) = state.withLock { state in
            state.withExistingPipeline(of: sender) { pipeline, users in
                pipeline.uid = uid
                users[uid, default: Usage()] += pipeline.usage
                guard var episode = pipeline.episode, !episode.announced else { return (true, nil) }
                episode.announced = true
                pipeline.episode = episode
                return (true, startMessage(sender: sender, uid: uid, usage: pipeline.usage, user: users[uid]!))
            } ?? (false, nil)
        }
        if let announcement { log(.warning, announcement) }
        return counted
    }

    /// A queued request of `sender` finished; `uid` is set when it counted for that uid.
    private func finished(_ usage: Usage, of sender: String, uid: UInt32?) {
        let ended: String? = state.withLock { state in
            if let uid, var user = state.users[uid] {
                user -= usage
                state.users[uid] = user.requests > 0 ? user : nil
            }
            return state.withExistingPipeline(of: sender) { pipeline, _ in
                pipeline.usage -= usage
                guard let episode = pipeline.episode, limits.perClient.hasDrained(pipeline.usage) else { return nil }
                pipeline.episode = nil
                return endMessage(sender: sender, uid: pipeline.uid, episode, ending: "its queue drained")
            } ?? nil
        }
        if let ended { log(.notice, ended) }
    }

    private func startMessage(sender: String, uid: UInt32, usage: Usage, user: Usage) -> String {
        "Client \(sender) (uid \(uid)) is over its request queue limit: \(usage.requests) requests (\(usage.bytes) bytes) queued from it, "
            + "\(user.requests) requests (\(user.bytes) bytes) from its user; refusing its further calls until its queue drains "
            + "(limits: \(limits.perClient) per client, \(limits.perUser) per user)."
    }

    private func endMessage(sender: String, uid: UInt32?, _ episode: Episode, ending: String) -> String {
        let seconds = (ContinuousClock.now - episode.start).components.seconds
        return "Client \(sender) (uid \(uid.map(String.init) ?? "unknown")) is no longer over its request queue limit (\(ending)); "
            + "in \(seconds) s over it, \(episode.refused) calls were refused with LimitsExceeded and \(episode.dropped) calls without reply dropped."
    }
}
