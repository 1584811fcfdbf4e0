// SPDX-License-Identifier: Apache-2.0
import Dispatch
import LocalAuthAPI
import LocalAuthBackends
import LocalAuthCore
import LocalAuthDBus
import LocalAuthSystem
import Synchronization

/// A biometric sensor in another process, behind provider protocol v1: the engine's
/// ``BiometricBackend`` on one side, `org.localauth.Provider1` calls on the other.
///
/// The provider is reached by its bus name in both run modes (bus-activated, or started by the
/// daemon through ``ProviderProcess``), so the checks are the same: a handshake believes the
/// connection that owns the name only if it has the descriptor's uid, and from then on only that
/// unique name's reports count (unique names are never reused on a bus). Every call to the
/// provider goes to that unique name and is bounded by the configured timeout; a provider that
/// does not answer in time is treated as crashed.
///
/// Arm and Disarm are sent one after another in the order the engine asked, from one task, so a
/// provider never sees a stale Arm after its Disarm. Attempts reach the engine from another single
/// task, in the order the provider reported them. All other state is behind `state`'s mutex.
///
/// While a session is armed, the provider is pinged (`org.freedesktop.DBus.Peer.Ping`, which
/// libdbus, GDBus and sd-bus answer by themselves) every ``ArmedPing/interval``: a provider that
/// stops answering after `Arm` replied is noticed then, not at the evaluation's timeout.
/// The log lines its reports cause pass a ``ProviderLogLimiter``.
public final class ProviderBackend: CapturingBackend {
    public typealias Log = @Sendable (AuditEntry.Severity, String) -> Void

    /// How often an armed provider is pinged, and how long it may take to answer; an error or no
    /// answer in time treats it as hung.
    public struct ArmedPing: Sendable {
        public static let standard = ArmedPing(interval: .seconds(5), timeout: .seconds(5))
        public let interval: Duration
        public let timeout: Duration

        public init(interval: Duration, timeout: Duration) {
            self.interval = interval
            self.timeout = timeout
        }
    }

    /// How long an enrollment may take in all (captures included) before it is cancelled.
    public static let enrollmentTimeout: Duration = .seconds(120)
    /// Bus mode: the first delay before asking again for a provider that is not there, doubled
    /// per failure up to the maximum.
    static let initialRetryDelay = 1.0
    static let maximumRetryDelay = 60.0
    /// Where retries wait: a serial queue, never `.global()` (docs/architecture.md, "Threads").
    private static let retries = DispatchQueue(label: "localauthd.provider-retries")

    public let descriptor: ProviderDescriptor
    public var id: String { descriptor.id }
    public var modality: BiometricModality { descriptor.modality }

    private enum Phase: Sendable, Hashable {
        /// Not yet handshaken (starting, or restarting after it went away).
        case down(String)
        case ready(owner: String, hello: ProviderHello)
        /// The handshake was refused; nothing is believed until the provider restarts.
        case refused(String)
    }

    private struct Enrolling: Sendable {
        var stages: UInt32
        let progress: @Sendable (EnrollmentProgress) -> Void
        let finish: @Sendable (Result<String, LocalAuthError>) -> Void
        /// Cancels the enrollment at ``ProviderBackend/enrollmentTimeout``; cancelled when it ends first.
        var deadline: Task<Void, Never>?
        let user: UInt32
        /// When it started or last reported a capture: an enrollment idle for a turn yields the sensor.
        var lastActivity = ContinuousClock.now
    }

    private struct State {
        var phase = Phase.down("starting")
        var available = false
        var armed: SensorSession?
        var enrollments: [UInt64: Enrolling] = [:]
        var lastEnrollment: UInt64 = 0
        var handshakes: UInt64 = 0
        /// Whether the ping loop runs (one per provider, while a session is armed).
        var pinging = false
        var retryDelay = ProviderBackend.initialRetryDelay
        var retryScheduled = false
        var stopped = false
        var onChange: (@Sendable () -> Void)?
    }

    private enum Command: Sendable {
        case arm(SensorSession, owner: String)
        case disarm(UInt64, owner: String)
        case cancelEnrollment(UInt64, owner: String)
    }

    private let connection: DBusConnection
    private let timeout: Duration
    /// How long an enrollment may go without a capture before an evaluation that wants the sensor
    /// ends it (`sensor_turn_seconds`); nil: never.
    private let enrollmentTurn: Duration?
    private let log: Log
    private let armedPing: ArmedPing
    private let reportLog = Mutex(ProviderLogLimiter())
    private let process: ProviderProcess?
    private let state = Mutex(State())
    private let commands: AsyncStream<Command>.Continuation
    private let deliveries: AsyncStream<(SensorSession, AttemptEvent)>.Continuation

    /// - Parameters:
    ///   - busAddress: the daemon's bus, handed to a provider the daemon starts (`Exec=`).
    ///   - timeout: how long each call to the provider may take.
    ///   - enrollmentTurn: how long an enrollment may take no capture before an evaluation that
    ///     wants the sensor ends it; nil: never.
    ///   - armedPing: how an armed provider is checked for a hang.
    public init(descriptor: ProviderDescriptor, connection: DBusConnection, busAddress: String, timeout: Duration,
                enrollmentTurn: Duration? = .seconds(10), armedPing: ArmedPing = .standard, log: @escaping Log) {
        self.descriptor = descriptor
        self.connection = connection
        self.timeout = timeout
        self.enrollmentTurn = enrollmentTurn
        self.armedPing = armedPing
        self.log = log
        process = descriptor.exec == nil ? nil : ProviderProcess(descriptor: descriptor, busAddress: busAddress, log: log)
        let (commandStream, commands) = AsyncStream<Command>.makeStream()
        let (deliveryStream, deliveries) = AsyncStream<(SensorSession, AttemptEvent)>.makeStream()
        self.commands = commands
        self.deliveries = deliveries
        Task { [weak self] in
            for await command in commandStream { await self?.send(command) }
        }
        Task {
            for await (session, attempt) in deliveryStream { _ = await session.deliver(attempt) }
        }
    }

    /// Called whenever availability, version or state change (to announce `Backends`).
    public func onChange(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onChange = handler }
    }

    /// Watches the provider's bus name and reaches the provider: starts it (`Exec=`), or asks the
    /// bus for it (bus activation). Returns at once; the backend is unavailable until the handshake.
    public func start() async throws {
        _ = try await connection.watchNameOwners(descriptor.busName) { [weak self] change in
            self?.ownerChanged(to: change.newOwner, from: change.oldOwner)
        }
        if let process {
            let owner = try? await nameOwner()
            if owner != nil { Task { await handshake() } }
            process.start()
        } else {
            Task { await handshake() }
        }
    }

    /// Stops the provider the daemon started; bus-activated ones are left to the service manager.
    public func stop() {
        state.withLock { $0.stopped = true }
        process?.stop()
        commands.finish()
    }

    /// The pid of the provider the daemon started, if it runs.
    public var processID: Int32? { process?.pid }

    // MARK: BiometricBackend

    public var isAvailable: Bool {
        state.withLock { state in
            guard case .ready = state.phase else { return false }
            return state.available
        }
    }

    public var detail: BackendDetail {
        let (phase, available) = state.withLock { ($0.phase, $0.available) }
        switch phase {
        case .down(let why):
            return BackendDetail(kind: .provider, version: "", state: "down: \(why)", description: descriptor.description)
        case .refused(let why):
            return BackendDetail(kind: .provider, version: "", state: "refused: \(why)", description: descriptor.description)
        case .ready(_, let hello):
            return BackendDetail(kind: .provider, version: hello.providerVersion, state: available ? "available" : "unavailable",
                                 description: hello.description.isEmpty ? descriptor.description : hello.description)
        }
    }

    public func validateEnrollment(label: String, existing: [String]) throws(LocalAuthError) {
        switch modality {
        case .fingerprint: try FingerprintSimulator.validateEnrollment(label: label, existing: existing)
        case .face: try FaceSimulator.validateEnrollment(label: label, existing: existing)
        }
    }

    public func labelsRemoved(withUnenrolling label: String, existing: [String]) -> Set<String> {
        switch modality {
        case .fingerprint: [label]
        case .face: FaceSimulator.labelsRemoved(withUnenrolling: label, existing: existing)
        }
    }

    public func arm(_ session: SensorSession) {
        let now = ContinuousClock.now
        let (owner, idle) = state.withLock { state -> (String?, [UInt64: Enrolling]) in
            guard case .ready(let owner, _) = state.phase, state.available else { return (nil, [:]) }
            state.armed = session
            // A provider holds its sensor for an enrollment; one that takes no capture for a turn
            // would otherwise keep every evaluation off it until its timeout, again and again.
            guard let turn = enrollmentTurn else { return (owner, [:]) }
            let idle = state.enrollments.filter { now - $0.value.lastActivity >= turn }
            for enrollment in idle.keys { state.enrollments.removeValue(forKey: enrollment) }
            return (owner, idle)
        }
        guard let owner else {
            deliveries.yield((session, .disconnected))
            return
        }
        for (enrollment, running) in idle.sorted(by: { $0.key < $1.key }) {
            running.deadline?.cancel()
            let seconds = enrollmentTurn.map { $0.components.seconds } ?? 0
            log(.notice, "provider \(id): enrollment \(enrollment) of uid \(running.user) took no capture for \(seconds) s; ended for an evaluation of uid \(session.user)")
            running.finish(.failure(LocalAuthError(.systemCancel, "The enrollment took no capture for \(seconds) s and an evaluation needed the sensor; nothing was enrolled. Start it again and touch the sensor for each capture.")))
            commands.yield(.cancelEnrollment(enrollment, owner: owner))
        }
        commands.yield(.arm(session, owner: owner))
    }

    public func disarm(_ sessionID: UInt64) {
        let owner = state.withLock { state -> String? in
            guard state.armed?.id == sessionID else { return nil }
            state.armed = nil
            guard case .ready(let owner, _) = state.phase else { return nil }
            return owner
        }
        if let owner { commands.yield(.disarm(sessionID, owner: owner)) }
    }

    /// Providers keep no attempts for later: a read with nothing armed is not reported.
    public func takeQueuedAttempt(for session: SensorSession) -> AttemptEvent? { nil }

    // MARK: CapturingBackend

    public func capture(user: UInt32, label: String, progress: @escaping @Sendable (EnrollmentProgress) -> Void) async throws(LocalAuthError) -> String {
        let (owner, stages, enrollment) = try state.withLock { (state) throws(LocalAuthError) -> (String, UInt32, UInt64) in
            guard case .ready(let owner, let hello) = state.phase, state.available else {
                throw LocalAuthError(.biometryNotAvailable, "The \(modality.rawValue) provider \(id) is not available now; check `localauth backends` and try again.")
            }
            guard hello.enrollStages > 0 else {
                throw LocalAuthError(.notSupported, "The \(modality.rawValue) provider \(id) cannot enroll; use the sensor vendor's tool.")
            }
            state.lastEnrollment += 1
            return (owner, hello.enrollStages, state.lastEnrollment)
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<String, LocalAuthError>, Never>) in
                let once = Atomic<Bool>(false)
                let finish: @Sendable (Result<String, LocalAuthError>) -> Void = { result in
                    if !once.exchange(true, ordering: .acquiringAndReleasing) { continuation.resume(returning: result) }
                }
                state.withLock { $0.enrollments[enrollment] = Enrolling(stages: stages, progress: progress, finish: finish, user: user) }
                // Cancelled before the enrollment was registered: the cancellation handler found nothing to end.
                if Task.isCancelled {
                    finish(.failure(LocalAuthError(.userCancel, "The enrollment was cancelled; nothing was enrolled.")))
                    state.withLock { _ = $0.enrollments.removeValue(forKey: enrollment) }
                    return
                }
                Task { await self.startEnrollment(enrollment, user: user, label: label, owner: owner) }
                let deadline = Task { [weak self] in
                    guard (try? await Task.sleep(for: Self.enrollmentTimeout)) != nil else { return }
                    self?.endEnrollment(enrollment, cancelAt: owner, .failure(LocalAuthError(.systemCancel, "The enrollment did not finish within \(Self.enrollmentTimeout.components.seconds) s; try again.")))
                }
                let running = state.withLock { state -> Bool in
                    state.enrollments[enrollment]?.deadline = deadline
                    return state.enrollments[enrollment] != nil
                }
                if !running { deadline.cancel() }
            }
        } onCancel: {
            endEnrollment(enrollment, cancelAt: owner, .failure(LocalAuthError(.userCancel, "The enrollment was cancelled; nothing was enrolled.")))
        }
        let template = try result.get()
        if Task.isCancelled {
            // Cancelled after the provider stored it: not enrolled, so not kept either.
            await deleteTemplates([template], user: user)
            throw LocalAuthError(.userCancel, "The enrollment was cancelled; nothing was enrolled.")
        }
        // The label is stored against the template only if the provider really holds it.
        let listed: [String]
        do { listed = try await callProvider(owner, ProviderMethod.listTemplates, user) } catch {
            throw LocalAuthError(.biometryNotAvailable, "The \(modality.rawValue) provider \(id) did not confirm the new template (\(Self.describe(error))); nothing was enrolled. Try again.")
        }
        guard listed.contains(template) else {
            log(.warning, "provider \(id): reported template \(template.prefix(64)) for uid \(user) but does not list it; not enrolled")
            throw LocalAuthError(.serviceFailure, "The \(modality.rawValue) provider \(id) reported a template it does not hold; nothing was enrolled. Its log may say why.")
        }
        return template
    }

    public func deleteTemplates(_ templates: [String], user: UInt32) async {
        guard case .ready(let owner, _)? = state.withLock({ $0.phase }) else {
            log(.warning, "provider \(id): could not delete templates \(templates.joined(separator: ", ")) of uid \(user): it is not running; they stay with the provider")
            return
        }
        for template in templates {
            do {
                try await callProvider(owner, ProviderMethod.deleteTemplate, user, template)
            } catch let error as DBusError where error.name.rawValue == LocalAuthBusNames.providerErrorPrefix + "UnknownTemplate" {
                continue
            } catch {
                log(.warning, "provider \(id): could not delete template \(template) of uid \(user): \(Self.describe(error))")
            }
        }
    }

    // MARK: Reports (ProviderHost, on the connection's queue)

    /// Whether `sender` is the connection this backend believes.
    func isOwner(_ sender: String) -> Bool {
        state.withLock { state in
            if case .ready(let owner, _) = state.phase { return owner == sender }
            return false
        }
    }

    /// `ReportAttempt`: malformed reports throw InvalidArgs; a report for a session that is not
    /// armed is ignored and logged. Nothing else changes in either case.
    func reportAttempt(session: UInt64, result: String, detail: String) throws(DBusError) {
        let outcome = try state.withLock { (state) throws(DBusError) -> (SensorSession, AttemptEvent)? in
            let parsed = try Self.parseAttempt(result, detail)
            if case .event(.retry(let reason)) = parsed, case .ready(_, let hello) = state.phase,
               !hello.retryReasons.isEmpty, !hello.retryReasons.contains(reason) {
                throw .invalidArgs("Retry reason \(reason.rawValue) is not among those the provider announced in Hello (\(hello.retryReasons.map(\.rawValue).joined(separator: ", "))).")
            }
            guard let armed = state.armed, armed.id == session else { return nil }
            switch parsed {
            case .match(let template):
                guard let label = armed.templates.first(where: { $0.value == template })?.key, armed.enrolledLabels.contains(label) else {
                    throw .invalidArgs("Template \"\(template.prefix(64))\" was not among the templates armed for session \(session).")
                }
                return (armed, .match(label: label))
            case .event(let event):
                return (armed, event)
            }
        }
        guard let outcome else {
            logReport(.notice, "provider \(id): ignored \(result) for session \(session), which is not armed on it")
            return
        }
        deliveries.yield(outcome)
    }

    private enum ParsedAttempt {
        case match(template: String)
        case event(AttemptEvent)
    }

    private static func parseAttempt(_ result: String, _ detail: String) throws(DBusError) -> ParsedAttempt {
        guard let result = AttemptResult(rawValue: result) else {
            throw .invalidArgs("Unknown attempt result \"\(result.prefix(64))\"; use one of: \(AttemptResult.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        switch result {
        case .match:
            guard !detail.isEmpty else { throw .invalidArgs("A match must name the template that matched.") }
            return .match(template: detail)
        case .noMatch: return .event(.noMatch)
        case .disconnected: return .event(.disconnected)
        case .retry:
            guard let reason = RetryReason(rawValue: detail) else {
                throw .invalidArgs("Unknown retry reason \"\(detail.prefix(64))\"; use one of: \(RetryReason.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            return .event(.retry(reason))
        }
    }

    /// `ReportEnrollment`.
    func reportEnrollment(_ enrollment: UInt64, status: String, completedStages: UInt32, detail: String) throws(DBusError) {
        guard let current = state.withLock({ $0.enrollments[enrollment] }) else {
            logReport(.notice, "provider \(id): ignored \(status) for enrollment \(enrollment), which is not running on it")
            return
        }
        guard let report = EnrollmentReport(rawValue: status) else {
            throw .invalidArgs("Unknown enrollment status \"\(status.prefix(64))\"; use one of: \(EnrollmentReport.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        switch report {
        case .stagePassed:
            state.withLock { $0.enrollments[enrollment]?.lastActivity = .now }
            current.progress(EnrollmentProgress(status: .stagePassed, completedStages: completedStages, stages: current.stages, detail: ""))
        case .retry:
            state.withLock { $0.enrollments[enrollment]?.lastActivity = .now }
            guard let reason = RetryReason(rawValue: detail) else {
                throw .invalidArgs("Unknown retry reason \"\(detail.prefix(64))\"; use one of: \(RetryReason.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            current.progress(EnrollmentProgress(status: .retry, completedStages: completedStages, stages: current.stages, detail: reason.rawValue))
        case .completed:
            guard !detail.isEmpty else { throw .invalidArgs("A completed enrollment must name the new template.") }
            endEnrollment(enrollment, cancelAt: nil, .success(detail))
        case .failed:
            endEnrollment(enrollment, cancelAt: nil, .failure(Self.enrollmentFailure(detail, provider: id)))
        }
    }

    /// `ReportAvailability`.
    func reportAvailability(_ available: Bool) {
        let (changed, armed) = state.withLock { state -> (Bool, SensorSession?) in
            let changed = state.available != available
            state.available = available
            guard !available else { return (changed, nil) }
            defer { state.armed = nil }
            return (changed, state.armed)
        }
        if let armed { deliveries.yield((armed, .disconnected)) }
        if !available { failEnrollments("its sensor went away") }
        if changed {
            logReport(.notice, "provider \(id): sensor \(available ? "available" : "unavailable")")
            announce()
        }
    }

    /// Logs a line that a report of the provider caused, unless the provider reports faster
    /// than ``ProviderLogLimiter`` lets through.
    func logReport(_ severity: AuditEntry.Severity, _ message: @autoclosure () -> String) {
        guard case .log(let suppressed) = reportLog.withLock({ $0.admit(at: .now) }) else { return }
        if suppressed > 0 {
            log(.warning, "provider \(id): \(suppressed) messages from provider \(id) suppressed (it reported faster than \(ProviderLogLimiter.defaultBurst) at once, then 1 a second)")
        }
        log(severity, message())
    }

    // MARK: Handshake and loss

    private func ownerChanged(to newOwner: String?, from oldOwner: String?) {
        guard !state.withLock({ $0.stopped }) else { return }
        let current: String? = state.withLock { state in
            if case .ready(let owner, _) = state.phase { return owner }
            return nil
        }
        if let current, current != newOwner {
            lose("its connection \(current) left the bus name \(descriptor.busName)")
        }
        if let newOwner, newOwner != current {
            Task { await handshake() }
        } else if newOwner == nil, case .refused = state.withLock({ $0.phase }) {
            state.withLock { $0.phase = .down("exited") }
            announce()
        }
    }

    /// Finds who owns the provider's name, checks its uid, says Hello. A refusal is final until
    /// the owner changes; a failure to reach the provider is retried with backoff (bus mode).
    private func handshake() async {
        let serial = state.withLock { state -> UInt64 in
            state.handshakes += 1
            return state.handshakes
        }
        do {
            var owner = try? await nameOwner()
            if owner == nil, process == nil {
                _ = try await connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                              member: "StartServiceByName", arguments: [.string(descriptor.busName), .uint32(0)], timeout: timeout)
                owner = try await nameOwner()
            }
            guard let owner else { return }  // Exec mode: the name's appearance starts the next handshake.
            let credentials = try await connection.credentials(of: owner)
            guard credentials.uid == descriptor.uid else {
                throw ProviderHello.Refusal(message: "its bus name \(descriptor.busName) is owned by \(owner) (pid \(credentials.pid.map(String.init) ?? "unknown")) with uid \(credentials.uid), not uid \(descriptor.uid) (User=\(descriptor.user) in \(descriptor.path)); an impostor, or a wrong User=")
            }
            let reply = try await callProvider(owner, ProviderMethod.hello, ProviderProtocol.hostVersion)
            let hello = try ProviderHello(reply, expecting: modality)
            let current = state.withLock { state -> Bool in
                guard state.handshakes == serial, !state.stopped else { return false }
                state.phase = .ready(owner: owner, hello: hello)
                state.available = hello.available
                state.retryDelay = Self.initialRetryDelay
                return true
            }
            guard current else { return }
            log(.notice, "provider \(id): ready, \(owner) (pid \(credentials.pid.map(String.init) ?? "unknown")), protocol \(hello.version), version \(hello.providerVersion.isEmpty ? "unknown" : hello.providerVersion), sensor \(hello.available ? "available" : "unavailable"), \(hello.identify ? "identifies" : "verifies the first template only"), \(hello.enrollStages) enrollment stages\(hello.attention ? ", reports attention" : "")")
            announce()
        } catch let refusal as ProviderHello.Refusal {
            guard state.withLock({ $0.handshakes == serial }) else { return }
            state.withLock { $0.phase = .refused(refusal.message) }
            log(.error, "provider \(id): refused: \(refusal.message)")
            announce()
        } catch {
            guard state.withLock({ $0.handshakes == serial }) else { return }
            if let error = error as? DBusError, error.name == .noReply {
                lose("it did not answer Hello within \(timeout)")
                return
            }
            state.withLock { $0.phase = .down("not reachable") }
            log(.warning, "provider \(id): cannot reach \(descriptor.busName): \(Self.describe(error))")
            announce()
            scheduleRetry()
        }
    }

    private func nameOwner() async throws -> String? {
        do {
            let reply = try await connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                                  member: "GetNameOwner", arguments: [.string(descriptor.busName)], timeout: timeout)
            return reply.first?.string
        } catch let error as DBusError where error.name == .nameHasNoOwner {
            return nil
        }
    }

    /// The provider is gone (exited, left its name, or stopped answering): the armed evaluation
    /// sees the sensor disconnect, running enrollments fail, and it is restarted.
    private func lose(_ reason: String, hung: Bool = false) {
        let (armed, wasReady) = state.withLock { state -> (SensorSession?, Bool) in
            var wasReady = false
            if case .ready = state.phase { wasReady = true }
            state.phase = .down(reason)
            state.available = false
            defer { state.armed = nil }
            return (state.armed, wasReady)
        }
        if let armed { deliveries.yield((armed, .disconnected)) }
        failEnrollments(reason)
        if wasReady || hung {
            log(.warning, "provider \(id): lost: \(reason); its sensor is unavailable until it is back\(armed.map { " (evaluation session \($0.id) sees it disconnect; nothing is counted)" } ?? "")")
            announce()
        }
        if hung { process?.kill(because: reason) }
        if process == nil { scheduleRetry() }
    }

    private func failEnrollments(_ reason: String) {
        let running = state.withLock { state in
            defer { state.enrollments = [:] }
            return Array(state.enrollments.values)
        }
        for enrollment in running {
            enrollment.deadline?.cancel()
            enrollment.finish(.failure(LocalAuthError(.biometryNotAvailable, "The \(modality.rawValue) provider \(id) went away during the enrollment (\(reason)); nothing was enrolled. Try again.")))
        }
    }

    /// Bus mode: asks for the provider again after a delay that doubles per failure.
    private func scheduleRetry() {
        let delay = state.withLock { state -> Double? in
            guard !state.retryScheduled, !state.stopped else { return nil }
            state.retryScheduled = true
            defer { state.retryDelay = min(state.retryDelay * 2, Self.maximumRetryDelay) }
            return state.retryDelay
        }
        guard let delay else { return }
        Self.retries.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            state.withLock { $0.retryScheduled = false }
            if case .ready = state.withLock({ $0.phase }) { return }
            Task { await self.handshake() }
        }
    }

    private func announce() {
        state.withLock { $0.onChange }?()
    }

    // MARK: Calls

    private func send(_ command: Command) async {
        switch command {
        case .arm(let session, let owner):
            let templates = session.enrolledLabels.compactMap { session.templates[$0] }
            do {
                try await callProvider(owner, ProviderMethod.arm, session.id, session.user, templates,
                                       ["RequireAttention": .bool(session.requireAttention)])
            } catch {
                failed("Arm", error, owner: owner, session: session)
                return
            }
            let startsPinging = state.withLock { state -> Bool in
                guard state.armed?.id == session.id, !state.pinging else { return false }
                state.pinging = true
                return true
            }
            if startsPinging { Task { await pingWhileArmed() } }
        case .disarm(let session, let owner):
            do { try await callProvider(owner, ProviderMethod.disarm, session) } catch {
                failed("Disarm", error, owner: owner, session: nil)
            }
        case .cancelEnrollment(let enrollment, let owner):
            // Before the Arm queued after it, so the provider has let the sensor go.
            try? await callProvider(owner, ProviderMethod.enrollCancel, enrollment)
        }
    }

    /// The armed session and the connection it is armed on; nil (and the ping loop stopping)
    /// when nothing is armed.
    private func armedForPing() -> (session: UInt64, owner: String)? {
        state.withLock { state in
            guard let armed = state.armed, case .ready(let owner, _) = state.phase else {
                state.pinging = false
                return nil
            }
            return (armed.id, owner)
        }
    }

    /// Pings the provider while a session is armed on it (one loop per provider, started after
    /// an Arm replied); one that does not answer is treated as hung: the armed evaluation sees the
    /// sensor disconnect and the provider is restarted.
    private func pingWhileArmed() async {
        while true {
            try? await Task.sleep(for: armedPing.interval)
            guard let pinged = armedForPing() else { return }
            do {
                _ = try await connection.call(destination: pinged.owner, path: "/", interface: "org.freedesktop.DBus.Peer", member: "Ping",
                                              arguments: [], timeout: armedPing.timeout)
            } catch {
                guard let current = armedForPing() else { return }
                guard current == pinged else { continue }  // disarmed or armed again meanwhile: ask the new arm
                let why = (error as? DBusError)?.name == .noReply ? "no answer to Peer.Ping within \(armedPing.timeout.components.seconds) seconds" : Self.describe(error)
                log(.warning, "provider \(id) stopped answering while armed (session \(pinged.session): \(why))")
                state.withLock { $0.pinging = false }
                lose("it stopped answering while armed", hung: true)
                return
            }
        }
    }

    /// A call failed: a timeout means the provider hangs; Unavailable or Busy end the session's listening.
    private func failed(_ member: String, _ error: any Error, owner: String, session: SensorSession?) {
        guard isOwner(owner) else { return }
        if let error = error as? DBusError, error.name == .noReply {
            lose("it did not answer \(member) within \(timeout)", hung: true)
            return
        }
        log(.warning, "provider \(id): \(member) failed: \(Self.describe(error))")
        guard let session else { return }
        let stillArmed = state.withLock { state -> Bool in
            guard state.armed?.id == session.id else { return false }
            state.armed = nil
            return true
        }
        if stillArmed { deliveries.yield((session, .disconnected)) }
    }

    /// Calls `method` of ``LocalAuthInterface/provider`` on the believed connection `owner`,
    /// through its proxy: the reply is checked against the declaration.
    private func callProvider<each Input: DBusArgument, Output: DBusArgument>(
        _ owner: String, _ method: BusMethod<repeat each Input, Output>, _ arguments: repeat (each Input).Value
    ) async throws -> Output.Value {
        try await DBusProxy(LocalAuthInterface.provider, on: connection, destination: owner, path: LocalAuthBusNames.providerPath, timeout: timeout)
            .call(method, repeat each arguments)
    }

    private func startEnrollment(_ enrollment: UInt64, user: UInt32, label: String, owner: String) async {
        do {
            let stages = try await callProvider(owner, ProviderMethod.enrollStart, enrollment, user, label)
            guard stages > 0 else {
                log(.warning, "provider \(id): EnrollStart replied 0 stages, not a stage count above 0")
                endEnrollment(enrollment, cancelAt: owner, .failure(LocalAuthError(.serviceFailure, "The \(modality.rawValue) provider \(id) answered the enrollment request wrongly; its log may say why.")))
                return
            }
            state.withLock { $0.enrollments[enrollment]?.stages = stages }
        } catch {
            if let error = error as? DBusError, error.name == .noReply {
                lose("it did not answer EnrollStart within \(timeout)", hung: true)
                return
            }
            endEnrollment(enrollment, cancelAt: nil, .failure(Self.enrollStartFailure(error, provider: id)))
        }
    }

    /// Ends a running enrollment once; with `cancelAt` the provider is told to cancel it.
    private func endEnrollment(_ enrollment: UInt64, cancelAt owner: String?, _ result: Result<String, LocalAuthError>) {
        guard let running = state.withLock({ $0.enrollments.removeValue(forKey: enrollment) }) else { return }
        running.deadline?.cancel()
        running.finish(result)
        if let owner {
            Task { try? await callProvider(owner, ProviderMethod.enrollCancel, enrollment) }
        }
    }

    private static func enrollStartFailure(_ error: any Error, provider: String) -> LocalAuthError {
        guard let error = error as? DBusError else { return LocalAuthError(.serviceFailure, "The provider \(provider) could not start the enrollment: \(error)") }
        switch error.name.rawValue {
        case LocalAuthBusNames.providerErrorPrefix + "Busy":
            return LocalAuthError(.busy, "Another program is using the sensor of provider \(provider); try again when it is done.")
        case LocalAuthBusNames.providerErrorPrefix + "EnrollFailed":
            return LocalAuthError(.serviceFailure, "The provider \(provider) could not start the enrollment: \(error.message.prefix(200))")
        default:
            return LocalAuthError(.biometryNotAvailable, "The provider \(provider) could not start the enrollment (\(describe(error))); check `localauth backends` and try again.")
        }
    }

    private static func enrollmentFailure(_ detail: String, provider: String) -> LocalAuthError {
        switch detail {
        case "data-full":
            LocalAuthError(.limitsExceeded, "The sensor's storage is full; remove an enrollment (localauth unenroll …) and try again.")
        case "duplicate":
            LocalAuthError(.invalidArgument, "The sensor already holds this finger or face (perhaps under another label); nothing was enrolled.")
        case "disconnected":
            LocalAuthError(.biometryNotAvailable, "The sensor went away during the enrollment; nothing was enrolled. Reconnect it and try again.")
        default:
            LocalAuthError(.serviceFailure, "The provider \(provider) could not enroll (\(detail.isEmpty ? "no reason given" : String(detail.prefix(64)))); nothing was enrolled. Try again.")
        }
    }

    private static func describe(_ error: any Error) -> String {
        (error as? DBusError).map { "\($0.name.rawValue): \($0.message)" } ?? "\(error)"
    }
}
