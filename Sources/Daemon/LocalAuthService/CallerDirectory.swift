// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthDBus
import LocalAuthSystem
import Synchronization

/// Who a caller is, as the bus reports it. A class: it is established once per connection and
/// handed to each of its requests, and a copy of a class is one retain where a copy of these
/// fields (strings, a group list, the app identity) was a dozen.
final class BusCaller: Sendable {
    let caller: Caller
    let credentials: DBusCredentials
    /// The app identity of the calling process (``ProcessIdentity``), or why it could not be read;
    /// looked up once per connection when it is identified: a connection's process keeps its
    /// executable and sandbox (libdbus closes the socket on exec).
    let app: Result<AppIdentity, ProcessIdentity.Unknown>

    init(caller: Caller, credentials: DBusCredentials, app: Result<AppIdentity, ProcessIdentity.Unknown>) {
        (self.caller, self.credentials, self.app) = (caller, credentials, app)
    }
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
/// Every queue runs in `Isolation` (the daemon's engine, whose executor is the connection's loop),
/// where requests are submitted. A request that finds its sender's queue idle and its sender
/// known runs at once, where it was submitted; so does each request behind it that is done
/// without waiting. The first that must wait — for the bus to say who its sender is, or in its own
/// work (``Wait``) — goes on in a task, which then works through the rest of the queue the
/// same way. Most requests never wait, and a task costs each of them ~4 000 instructions (its
/// allocations and, in Swift 6.3, an executor-preference lookup under a lock at every switch).
final class CallerDirectory<Isolation: Actor>: Sendable {
    /// A request's work once its caller is known (or could not be, and it must be denied): done
    /// here and now (nil), or up to the point where it must wait, returning the rest.
    typealias Job = @Sendable (isolated Isolation, Result<BusCaller, DBusError>) -> Wait?
    /// The rest of a request that has to wait (for polkit, an agent, a provider): its sender's
    /// next request runs once it is done.
    typealias Wait = @Sendable (isolated Isolation) async -> Void
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
        /// The queued work of every uid some sender has been identified as, while one of its
        /// senders is connected or its work is queued.
        var users: [UInt32: UserUsage] = [:]
    }

    /// One sender's queue and what it has queued. A class so that a finished request updates its
    /// sender's and its user's counts without looking either up; its variables are guarded by the
    /// directory's `state` lock like the rest of the directory's state.
    private final class Pipeline: @unchecked Sendable {
        let queue = SenderQueue()
        var usage = Usage()
        /// Set once the bus said who the sender is; from then on its work counts for that uid too.
        var user: UserUsage?
        /// Set while the sender is over a bound and until its queue drains to half of it.
        var episode: Episode?
        /// Whether its sender has left the bus (it is then no longer in `pipelines`).
        var left = false
    }

    /// What one uid's senders have queued. Guarded by the directory's `state` lock.
    private final class UserUsage: @unchecked Sendable {
        let uid: UInt32
        var usage = Usage()
        /// How many connected senders were identified as `uid`.
        var senders = 0

        init(uid: UInt32) {
            self.uid = uid
        }

        /// Nothing queued and no sender connected: the entry can go.
        var isUnused: Bool { senders == 0 && usage.requests == 0 }
    }

    private struct Entry {
        let job: Job
        let usage: Usage
    }

    /// A dequeued request that must wait before its sender's next one runs: for the rest of its
    /// work, or (no `rest`) for its sender's identity before it can run at all.
    private struct Waiting {
        let entry: Entry
        let rest: Wait?
    }

    /// One sender's queued requests and who it is, worked through in arrival order by one runner at
    /// a time: the request that found it idle, or the task of the first that waited. An idle sender
    /// costs no task.
    private final class SenderQueue: Sendable {
        private struct State {
            /// Slots `head..<tail` hold the queued entries; taken ones are nil (their captures
            /// released at once). The slots are reused once the queue runs empty.
            var entries: [Entry?] = []
            var head = 0
            var tail = 0
            var draining = false
            /// Once established, reused for every later request of the sender.
            var identity: BusCaller?
        }

        private let state = Mutex(State())

        /// Queues `entry`; true when nothing is working through the queue (the caller then does).
        func push(_ entry: Entry) -> Bool {
            state.withLock { state in
                if state.tail < state.entries.count {
                    state.entries[state.tail] = entry
                } else {
                    state.entries.append(entry)
                }
                state.tail += 1
                defer { state.draining = true }
                return !state.draining
            }
        }

        /// The next entry, or nil (and the queue idle) when there is none.
        func next() -> Entry? {
            state.withLock { state in
                guard state.head < state.tail else {
                    // Every slot is nil: an idle queue keeps up to 16 for its next requests.
                    if state.entries.count > 16 { state.entries = [] }
                    (state.head, state.tail) = (0, 0)
                    state.draining = false
                    return nil
                }
                let entry = state.entries[state.head].take()
                state.head += 1
                // A sender that never lets its queue run empty must not grow it without end.
                if state.head >= 32, state.head * 2 >= state.tail {
                    state.entries.removeFirst(state.head)
                    state.tail -= state.head
                    state.head = 0
                }
                return entry
            }
        }

        var identity: BusCaller? {
            state.withLock { $0.identity }
        }

        func identified(_ caller: BusCaller) {
            state.withLock { $0.identity = caller }
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
            if let rest = job(isolation, .failure(.accessDenied("The call has no sender; connect through a message bus."))) {
                Task.immediate { await rest(isolation) }
            }
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
        let admitted: Pipeline? = state.withLock { state in
            let pipeline: Pipeline
            if let existing = state.pipelines[sender] {
                pipeline = existing
            } else {
                pipeline = Pipeline()
                state.pipelines[sender] = pipeline
            }
            let userUsage = pipeline.user?.usage ?? Usage()
            let fits = limits.perClient.admits(pipeline.usage + cost) && (pipeline.user == nil || limits.perUser.admits(userUsage + cost))
            guard fits else {
                var episode = pipeline.episode ?? Episode()
                if replyExpected { episode.refused += 1 } else { episode.dropped += 1 }
                if !episode.announced, let uid = pipeline.user?.uid {
                    episode.announced = true
                    announcement = startMessage(sender: sender, uid: uid, usage: pipeline.usage, user: userUsage)
                }
                pipeline.episode = episode
                return nil
            }
            pipeline.usage += cost
            pipeline.user?.usage += cost
            return pipeline
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
        let pipeline: Pipeline? = state.withLock { state in
            guard let pipeline = state.pipelines.removeValue(forKey: sender) else { return nil }
            pipeline.left = true
            if let user = pipeline.user {
                user.senders -= 1
                if user.isUnused { state.users[user.uid] = nil }
            }
            return pipeline
        }
        guard let pipeline else { return }
        if let episode = pipeline.episode { log(.notice, endMessage(sender: sender, uid: pipeline.user?.uid, episode, ending: "left the bus")) }
        enqueue(Entry(job: { _, _ in farewell }, usage: Usage()), on: pipeline, of: sender, isolation)
    }

    /// Queues `entry` behind the sender's earlier requests. If none was queued, works through the
    /// queue here, and in a task from the first request that must wait.
    private func enqueue(_ entry: Entry, on pipeline: Pipeline, of sender: String, _ isolation: isolated Isolation) {
        guard pipeline.queue.push(entry), let waiting = runReady(pipeline, of: sender, isolation) else { return }
        Task.immediate { [self] in
            var waiting: Waiting? = waiting
            while let current = waiting {
                if let rest = current.rest {
                    await rest(isolation)
                } else {
                    await current.entry.job(isolation, await identity(of: sender, pipeline, isolation))?(isolation)
                }
                finished(current.entry.usage, of: sender, pipeline)
                waiting = runReady(pipeline, of: sender, isolation)
            }
        }
    }

    /// Runs the sender's queued requests in order while each is done without waiting; returns the
    /// first that must wait, or nil once the queue is empty (it is then idle).
    private func runReady(_ pipeline: Pipeline, of sender: String, _ isolation: isolated Isolation) -> Waiting? {
        while let entry = pipeline.queue.next() {
            guard let known = pipeline.queue.identity else { return Waiting(entry: entry, rest: nil) }
            if let rest = entry.job(isolation, .success(known)) { return Waiting(entry: entry, rest: rest) }
            finished(entry.usage, of: sender, pipeline)
        }
        return nil
    }

    /// Who `sender` is, asked of the bus once, for its first request; a failure is not kept (a
    /// later request may succeed), but this request is denied. In `isolation`, as the bus is asked
    /// from the connection's loop.
    private func identity(of sender: String, _ pipeline: Pipeline, _ isolation: isolated Isolation) async -> Result<BusCaller, DBusError> {
        do {
            let credentials = try await self.credentials(sender)
            let app = identify(credentials.pid)
            if case .failure(let unknown) = app {
                log(.warning, "Client \(sender) (uid \(credentials.uid)) could not be identified as an app: \(unknown). "
                    + "Face ID is not offered to it, and it may not register as an agent nor call methods that take the passcode.")
            }
            let caller = BusCaller(caller: Caller(client: ClientID(sender), uid: credentials.uid, pid: credentials.pid),
                                   credentials: credentials, app: app)
            identified(sender, pipeline, as: credentials.uid)
            pipeline.queue.identified(caller)
            return .success(caller)
        } catch {
            let reason = (error as? DBusError)?.message ?? "\(error)"
            return .failure(.accessDenied("Could not establish who is calling (\(reason)); access denied."))
        }
    }

    /// From now on the sender's queued work counts for `uid` as well; an episode waiting for the
    /// uid is announced. Nothing counts for `uid` if the sender has already left.
    private func identified(_ sender: String, _ pipeline: Pipeline, as uid: UInt32) {
        let announcement: String? = state.withLock { state in
            guard !pipeline.left, pipeline.user == nil else { return nil }
            let user: UserUsage
            if let existing = state.users[uid] {
                user = existing
            } else {
                user = UserUsage(uid: uid)
                state.users[uid] = user
            }
            pipeline.user = user
            user.senders += 1
            user.usage += pipeline.usage
            guard var episode = pipeline.episode, !episode.announced else { return nil }
            episode.announced = true
            pipeline.episode = episode
            return startMessage(sender: sender, uid: uid, usage: pipeline.usage, user: user.usage)
        }
        if let announcement { log(.warning, announcement) }
    }

    /// A queued request of `sender` finished: it no longer counts for the sender nor its user.
    private func finished(_ usage: Usage, of sender: String, _ pipeline: Pipeline) {
        let ended: String? = state.withLock { state in
            pipeline.usage -= usage
            if let user = pipeline.user {
                user.usage -= usage
                if user.isUnused { state.users[user.uid] = nil }
            }
            guard !pipeline.left, let episode = pipeline.episode, limits.perClient.hasDrained(pipeline.usage) else { return nil }
            pipeline.episode = nil
            return endMessage(sender: sender, uid: pipeline.user?.uid, episode, ending: "its queue drained")
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
