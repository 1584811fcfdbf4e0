// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies
import Synchronization

/// Apple's `LARight`: a grant the user gives by authenticating, guarded by an
/// ``LAAuthenticationRequirement``. Save it in ``LARightStore`` to get an ``LAPersistedRight``
/// with a key and a secret that only an authorized right can use.
///
/// Each right has its own localauthd context (as an `LAContext`), made on first use with the
/// bus `LAContext` would use, the app's `NSFaceIDUsageDescription` included. `authorize` runs
/// `Context.EvaluateRequirement` there (for an ``LAPersistedRight``, `Context.AuthorizeRight`),
/// with the same prompts, agent, counting and lockout as `evaluatePolicy`. A plain right with a
/// `biometryCurrentSet` requirement remembers the biometric domain state of its first
/// successful authorization and fails (`errSecItemNotFound`) once the enrollments change.
/// `deauthorize` ends the authorization: a plain right drops its context and makes a new one.
///
/// Thread-safe (`@unchecked Sendable`: its state is behind a mutex). Completion handlers run on a
/// private queue.
open class LARight: NSObject, @unchecked Sendable {
    /// Apple's authorization states.
    public enum State: Int, Sendable, Hashable {
        /// Not yet authorized or checked.
        case unknown = 0
        /// An authorization runs.
        case authorizing = 1
        /// The last authorization succeeded and has not ended.
        case authorized = 2
        /// The last authorization failed, or the right was deauthorized.
        case notAuthorized = 3
    }

    private struct Storage {
        var state = State.unknown
        var tag = 0
        var session: ContextSession
        /// A plain right's `biometry-current-set` enrollments, from its first authorization.
        var domainState: Data?
    }

    let requirement: LAAuthenticationRequirement
    let bus: Result<DBusBus, LAError>
    private let storage: Mutex<Storage>

    /// A right with the `default` requirement.
    public convenience override init() {
        self.init(requirement: .default)
    }

    /// A right that `requirement` guards.
    public convenience init(requirement: LAAuthenticationRequirement) {
        self.init(requirement: requirement, bus: DaemonBus.fromEnvironment())
    }

    /// A right whose daemon is at `busAddress`, whatever the environment says (tests).
    @_spi(Testing) public convenience init(requirement: LAAuthenticationRequirement = .default, busAddress: String) {
        self.init(requirement: requirement, bus: .success(.address(busAddress)))
    }

    init(requirement: LAAuthenticationRequirement, bus: Result<DBusBus, LAError>, session: ContextSession? = nil) {
        self.requirement = requirement
        self.bus = bus
        storage = Mutex(Storage(session: session ?? ContextSession(bus: bus)))
    }

    deinit {
        storage.withLock { $0.session }.invalidate()
    }

    /// The authorization state.
    open var state: State {
        storage.withLock { $0.state }
    }

    /// A number for the app's own use.
    open var tag: Int {
        get { storage.withLock { $0.tag } }
        set { storage.withLock { $0.tag = newValue } }
    }

    /// The context this right's operations run in.
    var session: ContextSession {
        storage.withLock { $0.session }
    }

    // MARK: Authorizing

    /// Asks the user to authenticate as the requirement says, showing `localizedReason`; returns
    /// once authorized, or throws the `LAError` (or `errSecItemNotFound` error) that ended it.
    open func authorize(localizedReason: String) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            authorize(localizedReason: localizedReason) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// The completion form of ``authorize(localizedReason:)``: `handler` gets nil on success.
    @preconcurrency
    open func authorize(localizedReason: String, completion handler: @escaping @Sendable ((any Error)?) -> Void) {
        let (session, call) = storage.withLock { storage in
            storage.state = .authorizing
            return (storage.session, authorizationCall(reason: LocalAuthDaemon.acceptableText(localizedReason), domainState: storage.domainState))
        }
        session.send(.evaluate(call) { [self] failure in
            if let failure {
                // Refused because an authorization already runs: that one's outcome sets the state.
                if case .busy = failure {} else { finishAuthorization(in: session, succeeded: false) }
                return LAContext.replyQueue.async { handler(RightError.from(failure)) }
            }
            Task(executorPreference: ClientExecutor.shared) {
                await self.rememberDomainState(in: session)
                self.finishAuthorization(in: session, succeeded: true)
                LAContext.replyQueue.async { handler(nil) }
            }
        })
    }

    /// Whether ``authorize(localizedReason:)`` could succeed now (a sensor or passcode to ask,
    /// enrollments, no lockout); throws why not. Asks no one; the state does not change.
    open func checkCanAuthorize() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            checkCanAuthorize { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// The completion form of ``checkCanAuthorize()``.
    @preconcurrency
    open func checkCanAuthorize(completion handler: @escaping @Sendable ((any Error)?) -> Void) {
        let (session, check) = storage.withLock { ($0.session, checkCall(domainState: $0.domainState)) }
        session.send(.call(check) { result in
            let error: (any Error)? = if case .failure(let failure) = result { RightError.from(failure) } else { nil }
            LAContext.replyQueue.async { handler(error) }
        })
    }

    /// Ends the authorization: keys and secrets refuse again until the next `authorize`.
    open func deauthorize() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            deauthorize { continuation.resume() }
        }
    }

    /// The completion form of ``deauthorize()``.
    @preconcurrency
    open func deauthorize(completion handler: @escaping @Sendable () -> Void) {
        endAuthorization {
            LAContext.replyQueue.async { handler() }
        }
    }

    // MARK: What a persisted right does differently

    /// The evaluation `authorize` runs: a plain right evaluates its requirement.
    func authorizationCall(reason: String, domainState: Data?) -> ContextSession.EvaluationCall {
        let (expression, options) = (requirement.expression, requirementOptions(domainState))
        return ContextSession.EvaluationCall(
            perform: { try await $0.evaluateRequirement(expression, reason: reason, options: options, timeout: $1) },
            acceptsPasscode: requirement.acceptsPasscode)
    }

    /// The call `checkCanAuthorize` makes.
    func checkCall(domainState: Data?) -> @Sendable (ContextProxy) async throws -> [UInt8]? {
        let (expression, options) = (requirement.expression, requirementOptions(domainState))
        return {
            try await $0.canEvaluateRequirement(expression, options: options)
            return nil
        }
    }

    /// Whether the right remembers the enrollments of its first authorization: a plain right with
    /// a `biometry-current-set` term (a saved one is bound by the daemon when saved).
    var bindsEnrollmentsAtFirstAuthorization: Bool { requirement.needsCurrentSet }

    /// Ends the authorization, then calls `done`: a plain right replaces its context (the old one
    /// is invalidated, so no success of it is reused).
    func endAuthorization(_ done: @escaping @Sendable () -> Void) {
        let old = storage.withLock { storage in
            let old = storage.session
            storage.session = ContextSession(bus: bus)
            storage.session.state.withLock { $0.passcodeProvider = old.state.withLock { $0.passcodeProvider } }
            storage.state = .notAuthorized
            return old
        }
        old.invalidate()
        done()
    }

    /// Marks the right not authorized (a persisted right whose authorization the daemon ended).
    func markNotAuthorized() {
        storage.withLock { $0.state = .notAuthorized }
    }

    // MARK: Helpers

    private func requirementOptions(_ domainState: Data?) -> [String: DBusValue] {
        guard let domainState, requirement.needsCurrentSet else { return [:] }
        return [LocalAuthRequirementOption.domainState.rawValue: .bytes(Array(domainState))]
    }

    private func finishAuthorization(in session: ContextSession, succeeded: Bool) {
        storage.withLock { storage in
            // A deauthorize meanwhile replaced the context: its state stands.
            guard storage.session === session else { return }
            storage.state = succeeded ? .authorized : .notAuthorized
        }
    }

    /// After a plain right's first successful `biometry-current-set` authorization, the
    /// enrollments it is bound to from now on: the context's domain state (read by a biometric
    /// check when the evaluation did not leave one).
    private func rememberDomainState(in session: ContextSession) async {
        guard bindsEnrollmentsAtFirstAuthorization, storage.withLock({ $0.domainState == nil }) else { return }
        if session.state.withLock({ $0.domainState }) == nil {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                session.send(.canEvaluate(.deviceOwnerAuthenticationWithBiometrics) { _ in continuation.resume() })
            }
        }
        let domainState = session.state.withLock { $0.domainState }
        storage.withLock { if $0.domainState == nil { $0.domainState = domainState } }
    }
}
