// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// The policy core: contexts, evaluations, the shared lockout ledger and sensor arbitration.
///
/// An actor: it owns every piece of mutable state below, and nothing here touches D-Bus, files
/// or the clock except through the injected protocols. Entry points validate, mutate, then call
/// ``settle()`` once, which brings sensor claims and observers up to date. The suspension points
/// are passcode hashing and verification and the durable saves; code after them re-reads state.
///
/// Its serial executor is the embedder's choice: the daemon gives its bus connection's loop, so
/// that a call read there is answered in the engine's isolation without a task or a thread hop.
/// Saves therefore run elsewhere while the engine serves others: a failed attempt's ledger on the
/// store's writer (``LedgerWriter``), a profile, face decisions or a quarantine on a queue of
/// their own (``saveElsewhere(_:)``), one user's changes one at a time (``beginSaveTurn(of:)``).
/// Two rare paths still wait for a ledger save on the executor (``persistLedger(of:)``): the
/// retry of a ledger whose save failed, and a delay restarted when a user is first loaded.
public actor PolicyEngine {
    /// The outside world, as the core sees it.
    public struct Environment: Sendable {
        public var clock: any WallClock
        public var store: any StateStore
        /// nil when the passcode backend is not enabled.
        public var passcodeHasher: (any PasscodeHasher)?
        public var domainStateHasher: any DomainStateHasher
        public var audit: any AuditSink
        public var observer: (any EngineObserver)?
        /// nil when there is no session information: every client then has the standing `unknown`.
        public var sessions: (any SessionDirectory)?
        /// Who besides root may do privileged actions; nil: root only.
        public var authorizer: (any Authorizer)?
        /// Agents' sessions; nil: every process is sessionless (only fallback agents serve).
        public var sessionLookup: (any SessionLookup)?
        /// Where agents are told what to show; nil: no agent ever is.
        public var agentObserver: (any AgentObserver)?
        /// Face consent decisions; nil: kept in memory only, lost at restart.
        public var consentStore: (any ConsentStore)?
        /// Cookies and sheet handles.
        public var cookies: any CookieSource = SystemCookieSource()
        /// The sentences agents are sent, in their languages; English only unless the embedder
        /// loads translations.
        public var messages = MessageCatalog()
        /// Seals rights' secrets and private keys and uses the keys, opened at the first rights call;
        /// a failure (the TPM that sealed the wrapping key is gone, …) leaves rights unavailable:
        /// every rights call fails with its message.
        public var vault: VaultOpening
        /// Where rights are saved; nil: rights are unavailable (every rights call says so).
        public var rightStore: (any RightStore)?

        public init(clock: any WallClock, store: any StateStore, passcodeHasher: (any PasscodeHasher)?,
                    domainStateHasher: any DomainStateHasher, audit: any AuditSink, observer: (any EngineObserver)? = nil,
                    sessions: (any SessionDirectory)? = nil, authorizer: (any Authorizer)? = nil,
                    sessionLookup: (any SessionLookup)? = nil, agentObserver: (any AgentObserver)? = nil,
                    consentStore: (any ConsentStore)? = nil, cookies: any CookieSource = SystemCookieSource(),
                    vault: VaultOpening = VaultOpening(.failure(Self.noVault)), rightStore: (any RightStore)? = nil) {
            self.vault = vault
            self.rightStore = rightStore
            self.clock = clock
            self.store = store
            self.passcodeHasher = passcodeHasher
            self.domainStateHasher = domainStateHasher
            self.audit = audit
            self.observer = observer
            self.sessions = sessions
            self.authorizer = authorizer
            self.sessionLookup = sessionLookup
            self.agentObserver = agentObserver
            self.consentStore = consentStore
            self.cookies = cookies
        }

        /// The vault of an embedder that gives none.
        public static let noVault = RightVaultError(.sealingUnavailable, "Rights are not available: the service was started without a key vault.")
    }

    /// Invalidated contexts remembered per client (to answer invalidContext); older ones are forgotten.
    public static let invalidatedContextsKeptPerClient = 64

    /// Replaced by ``reload(_:)``; the settings bound at start-up stay as they were.
    private(set) var configuration: Configuration
    let environment: Environment
    /// Runs every passcode hash and check, fairly per user; nil when the passcode backend is not enabled.
    public nonisolated let passcodeWork: PasscodeWorkScheduler?
    /// Enabled biometric backends, at most one per modality.
    let backends: ModalityMap<any BiometricBackend>
    /// What `Backends` lists, in configuration order (the passcode backend among them when enabled).
    let listed: [any ListedBackend]

    /// Live contexts, what each client and user holds, the invalidated ones still remembered, and
    /// the running evaluations' deadlines.
    var contexts = ContextTable(keptPerClient: invalidatedContextsKeptPerClient)
    /// The users loaded so far (``userRecord(_:)``), their domain states, face decisions and save
    /// turns. A loaded user's record changes through ``updateUser(_:_:)``, which announces the change.
    var users = UserTable()
    var lastSerial: UInt64 = 0
    /// Per sensor: who holds it, the session it is armed for, and the attempt being saved
    /// (PolicyEngine+Sensors.swift). While an attempt is saved the sensor's next attempt waits,
    /// and its context is not published, until it is reported: attempts apply one at a time, as
    /// if each were saved at once.
    var sensors = SensorBoard()
    /// Contexts whose evaluation or sensors changed since the last ``settle()``: their claims are
    /// brought up to date then.
    var dirty: Set<ContextID> = []
    /// Contexts whose observable state may have changed since observers last heard.
    var pendingPublication: Set<ContextID> = []
    var publishedDeadline: BootTime?
    /// Process ids of connected clients, as their `Caller`s reported them; for audit entries.
    var clientPIDs: [ClientID: UInt32] = [:]
    /// The login session of each connected client's process, looked up once (a process stays in
    /// its session); nil inside when it is in none. Forgotten when the client leaves.
    var clientSessions: [ClientID: LoginSession?] = [:]
    var isShutDown = false
    /// Registered agents and the sheets they show (PolicyEngine+Agents.swift).
    var agentDesk = AgentDesk()
    /// Saved rights of the users loaded so far (PolicyEngine+Rights.swift); a user whose file could
    /// not be read has the reason instead, and no rights until the daemon can read it.
    var rightBooks: [UInt32: Result<UserRights, LocalAuthError>] = [:]
    /// Per user: saves and removals of rights, and key and secret operations, within their limits.
    var rightChangeLimiters: [UInt32: RightChangeLimiter] = [:]
    var rightOperationLimiters: [UInt32: RightOperationLimiter] = [:]

    /// Where the engine runs (``unownedExecutor``); kept for the unowned reference below.
    private nonisolated let executor: any SerialExecutor
    /// Read at every switch to the engine (a dozen a call): stored, not asked of the existential.
    private nonisolated let unownedExecutorReference: UnownedSerialExecutor

    public nonisolated var unownedExecutor: UnownedSerialExecutor { unownedExecutorReference }

    /// - Parameters:
    ///   - backends: the enabled biometric backends; a second backend of one modality is an error.
    ///   - listed: what ``backendStatus()`` reports, in order; nil: `backends`.
    ///   - executor: where the engine runs; nil: a queue of its own (``EngineQueue``).
    public init(configuration: Configuration, backends: [any BiometricBackend], listed: [any ListedBackend]? = nil,
                environment: Environment, executor: (any SerialExecutor)? = nil) throws(LocalAuthError) {
        var byModality = ModalityMap<any BiometricBackend>()
        for backend in backends {
            guard byModality[backend.modality] == nil else {
                throw LocalAuthError(.invalidArgument, "Two backends for the \(backend.modality.rawValue) sensor; enable only one.")
            }
            byModality[backend.modality] = backend
        }
        self.configuration = configuration
        self.backends = byModality
        self.listed = listed ?? backends
        self.environment = environment
        let executor = executor ?? EngineQueue()
        self.executor = executor
        unownedExecutorReference = executor.asUnownedSerialExecutor()
        passcodeWork = environment.passcodeHasher.map { PasscodeWorkScheduler(hasher: $0, limits: configuration.passcodeWorkLimits) }
    }

    // MARK: Contexts

    /// The ``PrivilegedAction`` stage every privileged operation passes: root always, anyone else
    /// when the authorizer says so, nobody else without one. Runs off the actor: asking may take
    /// a round trip, and it reads no engine state.
    public nonisolated func authorize(_ action: PrivilegedAction, caller: Caller) async throws(LocalAuthError) {
        guard !caller.isPrivileged else { return }
        guard let authorizer = environment.authorizer else {
            throw LocalAuthError(.accessDenied, Self.rootOnly(action))
        }
        try await authorizer.authorize(action, caller: caller)
    }

    /// Why `action` was refused when only root may do it.
    public static func rootOnly(_ action: PrivilegedAction) -> String {
        switch action {
        case .resetLockout: "Only root may reset lockouts."
        case .actForOtherUsers: "Only root may give CreateContext the User or Unlock option (a context for another user, or one that unlocks the session); leave both out for a context of your own."
        case .useSimulator: "Only root, the daemon's own user and members of simulator_group may drive the simulator."
        }
    }

    /// Options `User` and `Unlock` need ``PrivilegedAction/actForOtherUsers``.
    public func createContext(for caller: Caller, options: ContextOptions) async throws(LocalAuthError) -> ContextID {
        if Self.needsAuthorization(options) {
            try await authorize(.actForOtherUsers, caller: caller)
        }
        return try insertContext(for: caller, options: options)
    }

    /// ``createContext(for:options:)`` for options that need no authorization (neither `User` nor
    /// `Unlock`), without suspending: a transport may answer it where it read the call.
    public func createContext(for caller: Caller, unprivilegedOptions options: ContextOptions) throws(LocalAuthError) -> ContextID {
        precondition(!Self.needsAuthorization(options), "User and Unlock need authorization: use createContext(for:options:)")
        return try insertContext(for: caller, options: options)
    }

    /// Whether a context with `options` needs ``PrivilegedAction/actForOtherUsers``: it acts for
    /// another user (`User`) or unlocks the session (`Unlock`).
    public nonisolated static func needsAuthorization(_ options: ContextOptions) -> Bool {
        options.user != nil || options.isUnlockContext
    }

    private func insertContext(for caller: Caller, options: ContextOptions) throws(LocalAuthError) -> ContextID {
        let options = try Self.withApplicant(options, caller: caller)
        try ContextOptions.validateText(options.localizedFallbackTitle, name: "fallback title", allowEmpty: true)
        try ContextOptions.validateText(options.localizedCancelTitle, name: "cancel title", allowEmpty: false)
        try checkContextLimits(for: caller)
        remember(caller)
        let cookies = environment.cookies
        let id = contexts.newID { cookies.randomNumbers($0) }
        contexts.insert(ContextRecord(id: id, owner: caller.client, ownerUID: caller.uid, user: options.user ?? caller.uid, options: options))
        return id
    }

    /// Only root names the applicant (the PAM module, for `su` and `sudo`); any other caller acting
    /// for another user is the applicant itself, whose failures then lock only itself out.
    static func withApplicant(_ options: ContextOptions, caller: Caller) throws(LocalAuthError) -> ContextOptions {
        guard !caller.isPrivileged else { return options }
        guard options.applicant == nil else {
            throw LocalAuthError(.accessDenied, "Only root may name the applicant (the PAM module does, for su and sudo); other callers are their own applicant.")
        }
        var options = options
        if let user = options.user, user != caller.uid { options.applicant = caller.uid }
        return options
    }

    /// Refuses a new context beyond the caller's connection's share, its user's share, or what
    /// the service holds. Root is limited only per connection and by the total: the last
    /// ``Configuration/rootReservedContexts`` are its alone, so logins and sudo work however many
    /// contexts other users hold.
    private func checkContextLimits(for caller: Caller) throws(LocalAuthError) {
        guard contexts.liveCount(of: caller.client) < configuration.maxContextsPerClient else {
            throw LocalAuthError(.limitsExceeded, "This client already has \(configuration.maxContextsPerClient) contexts; invalidate some before creating more.")
        }
        if !caller.isPrivileged {
            guard contexts.liveCount(ofUser: caller.uid) < configuration.maxContextsPerUser else {
                throw LocalAuthError(.limitsExceeded, "Your applications together already have \(configuration.maxContextsPerUser) contexts; invalidate some or quit an application before creating more.")
            }
            guard contexts.count < configuration.maxUnprivilegedContexts else {
                throw LocalAuthError(.limitsExceeded, "The service holds the \(configuration.maxUnprivilegedContexts) contexts it allows unprivileged clients (the rest are kept for logins and sudo); try again later.")
            }
        }
        guard contexts.count < configuration.maxContexts else {
            throw LocalAuthError(.limitsExceeded, "The service holds its maximum of \(configuration.maxContexts) contexts; try again later.")
        }
    }

    /// The context's properties. Invalidated contexts answer invalidContext.
    public func snapshot(of id: ContextID, caller: ClientID) throws(LocalAuthError) -> ContextSnapshot {
        snapshot(try ownedContext(id, caller: caller))
    }

    public func updateOptions(of id: ContextID, caller: ClientID, _ change: ContextOptionChange) throws(LocalAuthError) {
        var options = try ownedContext(id, caller: caller).options
        switch change {
        case .localizedFallbackTitle(let title):
            try ContextOptions.validateText(title, name: "fallback title", allowEmpty: true)
            options.localizedFallbackTitle = title
        case .localizedCancelTitle(let title):
            try ContextOptions.validateText(title, name: "cancel title", allowEmpty: false)
            options.localizedCancelTitle = title
        case .interactionNotAllowed(let value):
            options.interactionNotAllowed = value
        case .allowableReuseDuration(let seconds):
            try options.setAllowableReuseDuration(seconds)
        }
        contexts[id]?.options = options
        announce(id)
    }

    public func canEvaluatePolicy(_ policy: LAPolicy, context id: ContextID, caller: ClientID) throws(LocalAuthError) {
        let record = try ownedContext(id, caller: caller)
        let user = userRecord(record.user)
        contexts[id]?.biometryType = preferredBiometryType()
        let refusal = refusal(of: policy, for: user, applicant: record.foreignApplicant) ?? faceRefusal(of: policy, record, user: user)
        if refusal == nil, policy.kind == .biometricsOnly {
            contexts[id]?.domainState = domainState(of: record.user)
        }
        announce(id)
        if let refusal { throw refusal }
    }

    /// Runs an evaluation to its end: success, or the LAError (or refusal) that ended it.
    public func evaluatePolicy(_ policy: LAPolicy, reason: String, context id: ContextID, caller: ClientID) async throws(LocalAuthError) -> EvaluationSuccess {
        let result = await withCheckedContinuation(isolation: self) { (continuation: CheckedContinuation<EvaluationResult, Never>) in
            beginEvaluation(policy, reason: reason, context: id, caller: caller) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Ends the running evaluation with userCancel; does nothing when none runs.
    public func cancel(context id: ContextID, caller: ClientID) throws(LocalAuthError) {
        let record = try ownedContext(id, caller: caller)
        guard record.evaluation != nil else { return }
        handle(.ended(.userCancel), on: id)
        settle()
    }

    /// Policy 1 ends with userFallback, policy 2 asks for the passcode. Refused while the
    /// fallback title is empty (the evaluation goes on); does nothing when none runs.
    public func fallback(context id: ContextID, caller: ClientID) throws(LocalAuthError) {
        let record = try ownedContext(id, caller: caller)
        guard !record.options.localizedFallbackTitle.isEmpty else {
            throw LocalAuthError(.notSupported, "The fallback is hidden because this context's fallback title is empty.")
        }
        guard record.evaluation != nil else { return }
        handle(.fallback, on: id)
        settle()
    }

    /// Ends a running evaluation with appCancel; afterwards every call fails with invalidContext.
    /// Invalidating twice does nothing.
    public func invalidate(context id: ContextID, caller: ClientID) throws(LocalAuthError) {
        if contexts.isInvalidated(id, by: caller) { return }
        try requireOwned(id, caller: caller)
        if contexts.isEvaluating(id) {
            handle(.ended(.appCancel), on: id)
        }
        guard let record = contexts.invalidate(id) else { return }
        dirty.insert(id)
        environment.observer?.contextChanged(snapshot(record, state: .invalidated))
        settle()
    }

    /// The client left: its contexts go away at once and their evaluations are dropped, counting nothing.
    /// Returns the contexts that went away. Costs what the client held, however many others hold.
    @discardableResult
    public func clientDisconnected(_ client: ClientID) -> [ContextID] {
        let leaving = contexts.removeClient(client)
        for record in leaving {
            if let evaluation = record.evaluation {
                let result = LocalAuthError(.systemCancel, "The client disconnected.")
                closeSheet(record.id, .failure(result))
                evaluation.reply(.failure(result))
            }
            dirty.insert(record.id)
        }
        dropAgent(client)
        clientPIDs[client] = nil
        clientSessions[client] = nil
        settle()
        return leaving.map(\.id)
    }

    /// Ends every evaluation whose timeout has passed with systemCancel, and every sensor turn that
    /// ran out. The next deadline is announced even if it did not change: the observer's timer has
    /// fired, and a wake that came early must not leave the remaining evaluations without one.
    public func handleDeadlines() {
        let now = environment.clock.uptime()
        for id in contexts.expired(at: now) {
            finish(id, .failure(LocalAuthError(.systemCancel, "The evaluation timed out after \(Int(configuration.evaluationTimeout)) s; try again.")))
        }
        for modality in BiometricModality.allCases {
            performSensorActions(sensors.apply([.turnMayBeDue], on: modality, at: now, turnLength: configuration.sensorTurnLength),
                                 on: modality)
        }
        let announced = publishedDeadline
        settle()
        if let deadline = publishedDeadline, deadline == announced {
            environment.observer?.nextDeadlineChanged(deadline)
        }
    }

    /// Ends every evaluation with systemCancel and refuses new ones (service shutdown).
    public func shutdown() {
        isShutDown = true
        for (id, record) in contexts where record.evaluation != nil {
            finish(id, .failure(LocalAuthError(.systemCancel, "The authentication service is shutting down.")))
        }
        settle()
    }

    /// The enabled backends as `Backends` lists them, in `backends` order.
    public func backendStatus() -> [BackendStatus] {
        listed.map(\.status)
    }

    /// Applies a reloaded configuration. Settings bound at start-up (``ConfigurationSetting/all``'s
    /// rows applied on restart) keep their old values; the keys that differed are returned so the
    /// administrator can be told a restart applies them. Running evaluations keep their deadline.
    public func reload(_ new: Configuration) -> [String] {
        var applied = new
        let needRestart = ConfigurationSetting.keepRestartSettings(of: configuration, in: &applied)
        configuration = applied
        return needRestart
    }

    /// Numbers for status lines: live contexts and running evaluations.
    public func counts() -> (contexts: Int, evaluations: Int) {
        (contexts.count, contexts.values.filter { $0.evaluation != nil }.count)
    }

    // MARK: Evaluation

    public typealias EvaluationResult = Result<EvaluationSuccess, LocalAuthError>

    /// Starts an evaluation and returns at once; `completion` is called exactly once, on the
    /// engine's actor, when it ends (refusals included). A transport uses this to keep the order
    /// of a client's requests: a Cancel sent after EvaluatePolicy finds the evaluation running.
    public func beginEvaluation(_ policy: LAPolicy, reason: String, context id: ContextID, caller: ClientID,
                                completion reply: @escaping @Sendable (EvaluationResult) -> Void) {
        let record: ContextRecord, user: UserRecord
        do throws(LocalAuthError) {
            record = try ownedContext(id, caller: caller)
            try ContextOptions.validateText(reason, name: "localized reason", allowEmpty: false)
            guard record.evaluation == nil, record.rightAuthorization == nil else {
                throw LocalAuthError(.busy, "This context is already evaluating a policy; wait for it to end or cancel it.")
            }
            guard !isShutDown else {
                throw LocalAuthError(.systemCancel, "The authentication service is shutting down.")
            }
            contexts[id]?.lastBiometricMatch = nil
            // Read once for the whole start: saving the ledger below changes only its saved flag.
            user = userRecord(record.user)
            if let refusal = refusal(of: policy, for: user, applicant: record.foreignApplicant) ?? faceRefusal(of: policy, record, user: user) { throw refusal }
            try requireSavedLedger(of: record.user)
        } catch {
            // Outcomes of the model (companionNotAvailable, passcodeNotSet, …) are audited; bad requests are not.
            if error.code != nil, let record = contexts[id] {
                audit(.failure(error), policy: policy, user: record.user, client: caller)
            }
            reply(.failure(error))
            return
        }

        let now = environment.clock.reading()
        // A lockout ends an earlier success as it ends the reuse window: the owner may not be the one here.
        if !record.options.isUnlockContext, let earlier = record.earlierSuccess,
           !user.ledger.isBiometryLockedOut(for: record.foreignApplicant), user.ledger.passcodeRefusal(at: now, for: record.foreignApplicant) == nil,
           earlier.satisfies(policy.kind, domainStateNow: domainState(of: record.user)) {
            audit(.success(.earlierSuccess), policy: policy, user: record.user, client: caller)
            reply(.success(.earlierSuccess))
            return
        }
        let window = min(record.options.allowableReuseDuration, ContextOptions.maximumAllowableReuseDuration)
        if user.ledger.allowsReuse(within: window, at: now, for: record.foreignApplicant) {
            contexts[id]?.earlierSuccess = EarlierSuccess(success: .reuse, domainState: domainState(of: record.user))
            audit(.success(.reuse), policy: policy, user: record.user, client: caller)
            reply(.success(.reuse))
            return
        }
        guard !record.options.interactionNotAllowed else {
            let error = LocalAuthError(.notInteractive)
            audit(.failure(error), policy: policy, user: record.user, client: caller)
            reply(.failure(error))
            return
        }

        startInteractive(policy, passcodeOnly: false, reason: reason, record: record, user: user, reply: reply)
    }

    /// Starts an evaluation that asks the user (no reuse, no earlier success): of `policy`, or of
    /// the passcode alone (`passcodeOnly`, with policy 2), for `user` (the record's user as
    /// loaded now). The caller has checked the refusals.
    func startInteractive(_ policy: LAPolicy, passcodeOnly: Bool, reason: String, record: ContextRecord, user: UserRecord,
                          reply: @escaping @Sendable (EvaluationResult) -> Void) {
        let id = record.id
        lastSerial += 1
        let sensors = passcodeOnly || user.ledger.isBiometryLockedOut(for: record.foreignApplicant) ? [] : usableSensors(for: user.profile)
        let plan = planSheet(record, usable: sensors)
        let usable = plan.usable
        var limits = ModalityMap<Int>()
        for modality in BiometricModality.allCases { limits[modality] = configuration.attemptsPerEvaluation(modality) }
        let (machine, action) = Evaluation.start(kind: policy.kind, usable: usable, attemptLimits: limits)
        let timeout = configuration.evaluationTimeout
        let deadline = timeout > 0 ? environment.clock.uptime().advanced(by: timeout) : nil
        contexts.beginEvaluation(RunningEvaluation(machine: machine, policy: policy, reason: reason, serial: lastSerial, reply: reply),
                                 on: id, deadline: deadline)
        if let agent = plan.agent { openSheet(id, agent: agent, usable: usable, askFace: plan.askFace) }
        dirty.insert(id)
        perform(action, on: id)
        settle()
    }

    /// Feeds one event to a context's evaluation and performs what it decides.
    func handle(_ event: Evaluation.Event, on id: ContextID) {
        dirty.insert(id)
        guard contexts.isEvaluating(id) else { return }
        let action = contexts[id]!.evaluation!.machine.handle(event)
        perform(action, on: id)
    }

    func perform(_ action: Evaluation.Action, on id: ContextID) {
        guard contexts.isEvaluating(id) else { return }
        switch action {
        case .none:
            break
        case .notify(let notice):
            guard let record = contexts[id], let evaluation = record.evaluation else { return }
            if case .passcodeWanted = notice, !passcodeCanBeTaken(id) {
                finish(id, .failure(LocalAuthError(.notInteractive, "The passcode is needed, but no agent runs in this session to ask for it; run `localauth agent` (or a desktop agent) and try again.")))
                return
            }
            show(record.visible(PromptText.notice(notice, reason: evaluation.reason, kind: evaluation.machine.kind, options: record.options, reader: PromptText.Reader(record.options, appPasscodeEntry: configuration.appPasscodeEntry)),
                                reason: evaluation.reason), on: id)
        case .finish(.success(let success)):
            finish(id, .success(success))
        case .finish(.failure(let code)):
            finish(id, .failure(LocalAuthError(code)))
        }
    }

    /// Ends the context's evaluation and answers its caller.
    func finish(_ id: ContextID, _ result: Result<EvaluationSuccess, LocalAuthError>) {
        guard case let (owner, user)? = contexts.ownerAndUser(of: id), let evaluation = contexts.endEvaluation(of: id) else { return }
        closeSheet(id, result)
        dirty.insert(id)
        if case .success(let success) = result {
            let state = domainState(of: user)
            let matchedAt: BootTime?
            if case .biometricMatch = success { matchedAt = environment.clock.uptime() } else { matchedAt = nil }
            contexts.update(id) { record in
                if let matchedAt {
                    record.domainState = state
                    record.lastBiometricMatch = matchedAt
                }
                record.earlierSuccess = EarlierSuccess(success: success, domainState: state)
            }
        }
        audit(result, policy: evaluation.policy, user: user, client: owner)
        evaluation.reply(result)
    }

    // MARK: Rules

    /// Apple's precedence for canEvaluatePolicy, also checked when an evaluation starts; the locks
    /// are those that apply to `applicant` (``UserLedger/applicants``).
    func refusal(of policy: LAPolicy, for user: UserRecord, applicant: UInt32?) -> LocalAuthError? {
        switch policy.kind {
        case .companion:
            return LocalAuthError(.companionNotAvailable)
        case .biometricsOnly:
            guard backends.values.contains(where: \.isAvailable) else { return LocalAuthError(.biometryNotAvailable) }
            if user.profileDamaged {
                return LocalAuthError(.biometryLockout, "This user's stored state could not be read; an administrator must reset it (localauth lockout reset --uid N).")
            }
            guard user.profile.hasPasscode else { return LocalAuthError(.passcodeNotSet) }
            guard !usableSensors(for: user.profile).isEmpty else { return LocalAuthError(.biometryNotEnrolled) }
            guard !user.ledger.isBiometryLockedOut(for: applicant) else { return LocalAuthError(.biometryLockout) }
            return nil
        case .biometricsOrPasscode:
            if user.profileDamaged {
                return LocalAuthError(.passcodeLockout, "This user's stored state could not be read; an administrator must reset it (localauth lockout reset --uid N).")
            }
            guard user.profile.hasPasscode else { return LocalAuthError(.passcodeNotSet) }
            if user.ledger.counts(of: applicant).passcodeLockedOut || user.ledger.passcodeLockedOut,
               let refusal = user.ledger.passcodeRefusal(at: environment.clock.reading(), for: applicant) {
                return refusal
            }
            return nil
        }
    }

    /// Sensors that are connected and have at least one of the user's enrollments.
    func usableSensors(for profile: UserProfile) -> BiometricModalitySet {
        var usable = BiometricModalitySet()
        for backend in backends.values where backend.isAvailable && profile.isEnrolled(backend.modality) { usable.insert(backend.modality) }
        return usable
    }

    func preferredBiometryType() -> LABiometryType {
        let preferred = configuration.preferredBiometry
        let other: BiometricModality = preferred == .face ? .fingerprint : .face
        for modality in [preferred, other] where backends[modality]?.isAvailable == true {
            return modality.biometryType
        }
        return .none
    }

    /// The user's `evaluatedPolicyDomainState`, hashed again only after the profile changed
    /// (``updateUser(_:_:)`` drops it).
    func domainState(of user: UInt32) -> [UInt8] {
        if let cached = users.domainState(of: user) { return cached }
        let state = environment.domainStateHasher.domainState(user: user, profile: userRecord(user).profile)
        users.cacheDomainState(state, of: user)
        return state
    }

    // MARK: Lookup and announcements

    /// The caller's live context, or invalidContext for one it invalidated (while remembered).
    ///
    /// Any other id, be it another client's live or invalidated context or one that never
    /// existed, gets the same ``noSuchContext`` whoever asks (another user, or the same user's
    /// other connection, which may be a sandboxed app): probing ids must not tell which exist.
    func ownedContext(_ id: ContextID, caller: ClientID) throws(LocalAuthError) -> ContextRecord {
        try requireOwned(id, caller: caller)
        return contexts[id]!
    }

    /// ``ownedContext(_:caller:)``'s check (the same answers), without copying the record out.
    func requireOwned(_ id: ContextID, caller: ClientID) throws(LocalAuthError) {
        if contexts.ownerAndUser(of: id)?.owner == caller { return }
        if contexts.isInvalidated(id, by: caller) { throw LocalAuthError(.invalidContext) }
        throw Self.noSuchContext
    }

    /// Carries no id or owner: the answer must read the same for every context that is not the caller's.
    static let noSuchContext = LocalAuthError(.unknownContext, "This connection has no such context; create one with CreateContext.")

    func state(of record: ContextRecord) -> ContextState {
        state(of: record.id, phase: record.evaluation?.machine.phase)
    }

    /// The state of context `id` whose evaluation is in `phase` (nil: none runs).
    func state(of id: ContextID, phase: Evaluation.Phase?) -> ContextState {
        switch phase {
        case nil, .finished: .idle
        case .passcode: .passcode
        case .biometry: listening(id).isEmpty ? .waiting : .biometry
        }
    }

    /// The sensors armed for this context.
    func listening(_ id: ContextID) -> BiometricModalitySet {
        sensors.listening(id)
    }

    func snapshot(_ record: ContextRecord, state: ContextState? = nil) -> ContextSnapshot {
        ContextSnapshot(id: record.id, owner: record.owner, user: record.user, state: state ?? self.state(of: record),
                        options: record.options, biometryType: record.biometryType,
                        evaluatedPolicyDomainState: record.domainState)
    }

    /// Tells observers about a property change (not state; ``settle()`` covers that).
    func announce(_ id: ContextID) {
        guard let record = contexts[id] else { return }
        environment.observer?.contextChanged(snapshot(record))
    }

    func remember(_ caller: Caller) {
        if let pid = caller.pid { clientPIDs[caller.client] = pid }
    }

    /// Records an audit entry, adding the client's process id when known.
    func recordAudit(_ entry: AuditEntry) {
        var entry = entry
        if entry.clientPID == nil, let client = entry.client { entry.clientPID = clientPIDs[ClientID(client)] }
        environment.audit.record(entry)
    }

    /// "Policy N satisfied by …." for each policy and each way to succeed, made once: every
    /// evaluation writes one, and interpolating it cost ~2 500 instructions a time.
    private static let satisfiedMessages: [[String]] = LAPolicy.allCases.map { policy in
        EvaluationSuccess.all.map { satisfiedMessage(policy, $0) }
    }

    private static func satisfiedMessage(_ policy: LAPolicy, _ success: EvaluationSuccess) -> String {
        "Policy \(policy.rawValue) satisfied by \(success.description)."
    }

    static func message(_ policy: LAPolicy, satisfiedBy success: EvaluationSuccess) -> String {
        guard let row = LAPolicy.allCases.firstIndex(of: policy), let column = EvaluationSuccess.all.firstIndex(of: success) else {
            return satisfiedMessage(policy, success)
        }
        return satisfiedMessages[row][column]
    }

    func audit(_ result: Result<EvaluationSuccess, LocalAuthError>, policy: LAPolicy, user: UInt32, client: ClientID) {
        switch result {
        case .success(let success):
            recordAudit(AuditEntry(.evaluation, user: user, client: client.rawValue, policy: policy,
                                                result: "success", message: Self.message(policy, satisfiedBy: success)))
        case .failure(let error):
            let name = error.code?.name ?? "\(error.kind)"
            recordAudit(AuditEntry(.evaluation, severity: .notice, user: user, client: client.rawValue, policy: policy,
                                                result: name, message: "Policy \(policy.rawValue) not satisfied: \(error.message)"))
        }
    }
}
