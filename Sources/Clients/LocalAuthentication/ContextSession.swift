// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies
import Synchronization

/// The daemon side of one `LAContext`: its daemon context, created on first use, and every request
/// to it.
///
/// Requests go through `operations` and one worker task performs them one after another, so the
/// daemon receives them in the order the app made them (it handles each client's requests in
/// arrival order). An evaluation is awaited in a task of its own: the worker goes on once the daemon
/// has started it (its first `Prompt`) or answered, so a later `invalidate()`, credential or
/// property change reaches the running evaluation rather than overtaking it.
///
/// Mutable state is in `state` (a mutex): written by the `LAContext` on the app's threads, by the
/// worker and evaluation tasks (on `ClientExecutor`) and by `Prompt` handlers (on the connection's
/// queue). No lock is held across an `await` or a call out of this module.
final class ContextSession: Sendable {
    enum Operation: Sendable {
        case canEvaluate(LAPolicy, @Sendable (LAError?) -> Void)
        case evaluate(EvaluationCall, @Sendable (CallFailure?) -> Void)
        /// Any other call to the daemon context, in order with the rest (a right's checks and key
        /// operations); the bytes it returns, if any.
        case call(@Sendable (ContextProxy) async throws -> [UInt8]?, @Sendable (Result<[UInt8]?, CallFailure>) -> Void)
        case updateOption(Option)
        case submitPasscode(DBusSecret, evaluation: UInt64, isCredential: Bool)
        case cancel(evaluation: UInt64?)
        case fallback
        case invalidate
    }

    /// A call that evaluates (prompts, may wait for the user): `EvaluatePolicy`, `AuthorizeRight`,
    /// `EvaluateRequirement`. One runs at a time per context.
    struct EvaluationCall: Sendable {
        /// Makes the call; it may wait for the user as long as `timeout` allows.
        let perform: @Sendable (_ context: ContextProxy, _ timeout: Duration) async throws -> Void
        /// Whether it may ask for the passcode: the credential and the passcode provider serve it then.
        let acceptsPasscode: Bool
    }

    /// Why a call did not succeed; the caller maps it to its error (``LAError`` for policies).
    enum CallFailure: Error {
        /// The context was invalidated before the call.
        case invalidated
        /// localauthd could not be reached, or no daemon context could be made.
        case unreachable(any Error)
        /// The daemon context (or the bus) refused or failed the call.
        case refused(any Error)
        /// Another evaluation runs in this context.
        case busy
    }

    /// The settable context properties, named as on the bus.
    enum Option: String, Sendable, CaseIterable {
        case localizedFallbackTitle = "LocalizedFallbackTitle"
        case localizedCancelTitle = "LocalizedCancelTitle"
        case interactionNotAllowed = "InteractionNotAllowed"
        case allowableReuseDuration = "AllowableReuseDuration"
    }

    struct Options: Sendable {
        var localizedFallbackTitle: String?
        var localizedCancelTitle: String?
        var localizedReason = ""
        var interactionNotAllowed = false
        var allowableReuseDuration: TimeInterval = 0
        /// Sent once, when the daemon context is made; the Info.plist's unless the app set one.
        var faceUsageDescription = InfoPlist.faceIDUsageDescription

        /// The value the daemon gets; nil titles are the daemon's defaults, texts are cut to its limit.
        func value(of option: Option) -> DBusValue {
            switch option {
            case .localizedFallbackTitle:
                .string(LocalAuthDaemon.acceptableText(localizedFallbackTitle ?? LocalAuthDaemon.defaultFallbackTitle))
            case .localizedCancelTitle:
                .string(LocalAuthDaemon.acceptableText(localizedCancelTitle ?? "").isEmpty
                    ? LocalAuthDaemon.defaultCancelTitle : LocalAuthDaemon.acceptableText(localizedCancelTitle ?? ""))
            case .interactionNotAllowed: .bool(interactionNotAllowed)
            case .allowableReuseDuration: .double(allowableReuseDuration)
            }
        }

        var creationOptions: [String: DBusValue] {
            var options = Dictionary(uniqueKeysWithValues: Option.allCases.map { ($0.rawValue, value(of: $0)) })
            let description = LocalAuthDaemon.acceptableText(faceUsageDescription ?? "")
            if !description.isEmpty { options[LocalAuthContextOption.faceUsageDescription.rawValue] = .string(description) }
            return options
        }
    }

    struct Daemon: Sendable {
        let connection: DBusConnection
        let path: String
        let subscription: DBusSubscription
        var proxy: ContextProxy { ContextProxy(connection, path: path) }
    }

    struct Evaluation {
        let id: UInt64
        let acceptsPasscode: Bool
        let started: Latch
        var hasStarted = false
        var credentialOffered = false
        /// The credential was submitted and not yet found wrong.
        var credentialPending = false
        var passcodeTask: Task<Void, Never>?
    }

    struct State {
        var options = Options()
        var biometryType = LABiometryType.none
        var domainState: Data?
        /// Wiped when released (see `DBusSecret`); compared by identity.
        var credential: DBusSecret?
        var passcodeProvider: LAPasscodeProvider?
        var promptStreams: [UInt64: AsyncStream<LAPrompt>.Continuation] = [:]
        var daemon: Daemon?
        var evaluation: Evaluation?
        var isInvalidated = false
        var nextID: UInt64 = 1
    }

    let state = Mutex(State())
    private let bus: Result<DBusBus, LAError>
    private let operations: AsyncStream<Operation>.Continuation

    init(bus: Result<DBusBus, LAError>) {
        self.bus = bus
        let (stream, operations) = AsyncStream.makeStream(of: Operation.self)
        self.operations = operations
        // Holds the session until `invalidate()` finishes the stream.
        Task(executorPreference: ClientExecutor.shared) { [self] in
            for await operation in stream { await perform(operation) }
        }
    }

    /// Queues a request; once the session is invalidated, answers it with `invalidContext` instead.
    func send(_ operation: Operation) {
        guard case .terminated = operations.yield(operation) else { return }
        let invalidated = LAError(.invalidContext, message: nil)
        switch operation {
        case .canEvaluate(_, let done): done(invalidated)
        case .evaluate(_, let done): done(.invalidated)
        case .call(_, let done): done(.failure(.invalidated))
        case .updateOption, .submitPasscode, .cancel, .fallback, .invalidate: break
        }
    }

    /// Changes an option and, if the daemon context exists by the time the worker gets to it, the daemon's copy.
    func update(_ option: Option, _ change: (inout Options) -> Void) {
        state.withLock { change(&$0.options) }
        send(.updateOption(option))
    }

    /// Ends the session: a running evaluation ends with `appCancel`, the daemon context goes away,
    /// prompt streams finish, and every later request is `invalidContext`. Twice does nothing.
    func invalidate() {
        let streams = state.withLock { state -> [AsyncStream<LAPrompt>.Continuation]? in
            guard !state.isInvalidated else { return nil }
            state.isInvalidated = true
            defer { state.promptStreams = [:] }
            return Array(state.promptStreams.values)
        }
        guard let streams else { return }
        streams.forEach { $0.finish() }
        operations.yield(.invalidate)
        operations.finish()
    }

    func setCredential(_ credential: DBusSecret?) {
        let submission = state.withLock { state -> (DBusSecret, UInt64)? in
            state.credential = credential
            guard let credential, var evaluation = state.evaluation, evaluation.acceptsPasscode else { return nil }
            guard evaluation.hasStarted else {
                evaluation.credentialOffered = false
                state.evaluation = evaluation
                return nil
            }
            evaluation.credentialOffered = true
            evaluation.credentialPending = true
            state.evaluation = evaluation
            return (credential, evaluation.id)
        }
        if let (credential, id) = submission { send(.submitPasscode(credential, evaluation: id, isCredential: true)) }
    }

    func prompts() -> AsyncStream<LAPrompt> {
        let (stream, continuation) = AsyncStream.makeStream(of: LAPrompt.self, bufferingPolicy: .bufferingNewest(64))
        let id = state.withLock { state -> UInt64? in
            guard !state.isInvalidated else { return nil }
            defer { state.nextID += 1 }
            state.promptStreams[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.promptStreams.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: The worker

    private func perform(_ operation: Operation) async {
        switch operation {
        case .canEvaluate(let policy, let done):
            let daemon: Daemon
            do { daemon = try await daemonContext() } catch { return done(.unavailable(for: policy, because: error)) }
            do {
                try await daemon.proxy.canEvaluatePolicy(policy)
                await refresh(daemon)
                done(nil)
            } catch {
                forgetIfDisconnected(daemon)
                await refresh(daemon)
                done(LAError(reply: error, policy: policy))
            }
        case .evaluate(let call, let done):
            await evaluate(call, done)
        case .call(let perform, let done):
            let daemon: Daemon
            do { daemon = try await daemonContext() } catch { return done(.failure(.unreachable(error))) }
            do {
                done(.success(try await perform(daemon.proxy)))
            } catch {
                forgetIfDisconnected(daemon)
                done(.failure(.refused(error)))
            }
        case .updateOption(let option):
            guard let (daemon, value) = state.withLock({ state in state.daemon.map { ($0, state.options.value(of: option)) } }) else { return }
            // The value is always acceptable to the daemon; a failure means the context is gone, which the next call reports.
            try? await daemon.proxy.setProperty(option.rawValue, to: value)
        case .submitPasscode(let passcode, let id, let isCredential):
            guard let daemon = state.withLock({ $0.evaluation?.id == id ? $0.daemon : nil }) else { return }
            do {
                try await daemon.proxy.submitPasscode(.secret(passcode))
            } catch let error as DBusError where error.name.rawValue == LocalAuthErrorName.authenticationFailed.dbusName {
                // A wrong credential is not offered again; the daemon prompts `passcode-wrong`.
                if isCredential { state.withLock { if $0.credential == passcode { $0.credential = nil } } }
            } catch {
                // NotEvaluating (it ended meanwhile) or PasscodeLockout (the daemon prompts why): nothing to do.
            }
        case .cancel(let id):
            guard let daemon = state.withLock({ id == nil || $0.evaluation?.id == id ? $0.daemon : nil }) else { return }
            try? await daemon.proxy.cancel()
        case .fallback:
            guard let daemon = state.withLock({ $0.daemon }) else { return }
            // NotSupported while the fallback title is empty: a hidden button cannot be chosen.
            try? await daemon.proxy.fallback()
        case .invalidate:
            guard let daemon = state.withLock({ $0.daemon }) else { return }
            try? await daemon.proxy.invalidate()
            daemon.connection.unsubscribe(daemon.subscription)
        }
    }

    private func evaluate(_ evaluation: EvaluationCall, _ done: @escaping @Sendable (CallFailure?) -> Void) async {
        let daemon: Daemon
        do { daemon = try await daemonContext() } catch { return done(.unreachable(error)) }
        let started = Latch()
        let id = state.withLock { state -> UInt64? in
            guard state.evaluation == nil else { return nil }
            defer { state.nextID += 1 }
            state.evaluation = Evaluation(id: state.nextID, acceptsPasscode: evaluation.acceptsPasscode, started: started)
            return state.nextID
        }
        guard let id else { return done(.busy) }
        Task(executorPreference: ClientExecutor.shared) { [self] in
            var outcome: CallFailure?
            do {
                try await evaluation.perform(daemon.proxy, LocalAuthDaemon.evaluationTimeout)
            } catch {
                forgetIfDisconnected(daemon)
                outcome = .refused(error)
            }
            started.open()
            await refresh(daemon)
            let passcodeTask = state.withLock { state -> Task<Void, Never>? in
                guard state.evaluation?.id == id else { return nil }
                defer { state.evaluation = nil }
                return state.evaluation?.passcodeTask
            }
            passcodeTask?.cancel()
            done(outcome)
        }
        // Every evaluation prompts or ends at once; the bound only keeps a misbehaving daemon from stalling this context.
        await started.wait(atMost: .seconds(10))
    }

    /// The daemon context, created (with the current options) and subscribed to on first use.
    private func daemonContext() async throws -> Daemon {
        if let daemon = state.withLock({ $0.daemon }) { return daemon }
        let connection = try await DaemonBus.connection(to: bus.get())
        let options = state.withLock { $0.options.creationOptions }
        let path = try await ManagerProxy(connection).createContext(options: options)
        let subscription: DBusSubscription
        do {
            subscription = try await connection.subscribe(
                DBusMatchRule(path: path, interface: LocalAuthBusNames.contextInterface, member: "Prompt")
            ) { [weak self] signal in self?.receive(signal) }
        } catch {
            try? await ContextProxy(connection, path: path).invalidate()
            throw error
        }
        let daemon = Daemon(connection: connection, path: path, subscription: subscription)
        state.withLock { $0.daemon = daemon }
        return daemon
    }

    /// After losing the bus connection the daemon dropped the context: make a new one on next use.
    private func forgetIfDisconnected(_ daemon: Daemon) {
        guard !daemon.connection.isOpen else { return }
        state.withLock { if $0.daemon?.path == daemon.path { $0.daemon = nil } }
    }

    /// Reads `BiometryType` and `EvaluatedPolicyDomainState`, which checks and evaluations change.
    private func refresh(_ daemon: Daemon) async {
        guard let values = try? await daemon.proxy.proxy.allProperties() else { return }
        state.withLock { state in
            if let raw = values["BiometryType"]?.uint32, let type = LABiometryType(rawValue: Int(raw)) {
                state.biometryType = type
            }
            if let bytes = values["EvaluatedPolicyDomainState"]?.bytes {
                state.domainState = bytes.isEmpty ? nil : Data(bytes)
            }
        }
    }

    // MARK: Prompts

    private enum PromptReaction {
        case none
        case submitCredential(DBusSecret, evaluation: UInt64)
        case askForPasscode(LAPasscodeProvider, evaluation: UInt64)
    }

    /// A `Prompt` signal for this context (on the connection's queue): hands it to the prompt streams,
    /// marks the evaluation started, and offers the credential or asks the passcode provider.
    private func receive(_ signal: DBusSignal) {
        guard signal.arguments.count == 2, let name = signal.arguments[0].string, let message = signal.arguments[1].string,
              let kind = LAPrompt.Kind(rawValue: name)
        else { return }
        let (streams, started, reaction) = state.withLock { state -> ([AsyncStream<LAPrompt>.Continuation], Latch?, PromptReaction) in
            let streams = Array(state.promptStreams.values)
            guard var evaluation = state.evaluation else { return (streams, nil, .none) }
            evaluation.hasStarted = true
            var reaction = PromptReaction.none
            if kind == .passcodeWrong, evaluation.credentialPending {
                // The credential was wrong: it is not offered again (this may arrive before SubmitPasscode's reply).
                evaluation.credentialPending = false
                state.credential = nil
            }
            if evaluation.acceptsPasscode {
                if let credential = state.credential, !evaluation.credentialOffered {
                    evaluation.credentialOffered = true
                    evaluation.credentialPending = true
                    reaction = .submitCredential(credential, evaluation: evaluation.id)
                } else if kind == .passcode || kind == .passcodeWrong, let provider = state.passcodeProvider {
                    reaction = .askForPasscode(provider, evaluation: evaluation.id)
                }
            }
            state.evaluation = evaluation
            return (streams, evaluation.started, reaction)
        }
        let prompt = LAPrompt(kind: kind, message: message)
        streams.forEach { $0.yield(prompt) }
        started?.open()
        switch reaction {
        case .none:
            break
        case .submitCredential(let credential, let id):
            send(.submitPasscode(credential, evaluation: id, isCredential: true))
        case .askForPasscode(let provider, let id):
            let request = LAPasscodeRequest(message: message, isRetry: kind == .passcodeWrong)
            let task = Task(executorPreference: ClientExecutor.shared) { [weak self] in
                // The provider's String cannot be wiped; it is copied once into a buffer that is.
                let answer = await provider(request).map { DBusSecret(copying: $0.utf8) }
                guard !Task.isCancelled, let self else { return }
                send(answer.map { .submitPasscode($0, evaluation: id, isCredential: false) } ?? .cancel(evaluation: id))
            }
            let superseded = state.withLock { state -> Task<Void, Never>? in
                guard state.evaluation?.id == id else { return task }
                defer { state.evaluation?.passcodeTask = task }
                return state.evaluation?.passcodeTask
            }
            superseded?.cancel()
        }
    }
}
