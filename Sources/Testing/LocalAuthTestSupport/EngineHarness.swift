// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthBackends
import LocalAuthCore

/// An engine with both simulators, fake clock, memory store and recorders: what rule tests drive.
public struct EngineHarness: Sendable {
    public let engine: PolicyEngine
    public let clock: FakeClock
    public let store: MemoryStateStore
    public let observer: RecordingObserver
    public let audit: RecordingAuditSink
    public let hasher: FakePasscodeHasher
    public let queue: SimulatorEventQueue
    public let fingerprint: FingerprintSimulator
    public let face: FaceSimulator
    public let sessions: FakeSessionDirectory
    /// What agents were told.
    public let agents: RecordingAgentObserver
    public let configuration: Configuration
    /// Where the engine saves rights (pass one to simulate a restart).
    public let rightStore: MemoryRightStore
    /// Seals rights and uses their keys (libsodium; see ``SodiumTestVault``).
    public let vault: SodiumTestVault

    public static let alice = Caller(client: ClientID(":1.10"), uid: 1000)
    public static let aliceSecondApp = Caller(client: ClientID(":1.11"), uid: 1000)
    public static let bob = Caller(client: ClientID(":1.20"), uid: 1001)
    public static let root = Caller(client: ClientID(":1.1"), uid: 0)
    public static let passcode = "4711-secret"

    /// - Parameters:
    ///   - store: pass one to simulate a restart over the same state.
    ///   - passcodeHasher: used instead of ``hasher`` (a ``GatedPasscodeHasher``, say).
    ///   - authorizer: who besides root may do privileged actions; nil: root only.
    ///   - sensor: a backend used instead of the simulator of its modality (a provider's double).
    ///   - vaultOpening: how the engine opens its vault, instead of `vault` already open.
    public init(configuration: Configuration = Configuration(), store: MemoryStateStore = MemoryStateStore(),
                clock: FakeClock = FakeClock(), passcodeHasher: (any PasscodeHasher)? = nil,
                authorizer: (any Authorizer)? = nil, sensor: (any BiometricBackend)? = nil, appPasscodeEntry: Bool = true, faceConsent: Bool = false,
                rightStore: MemoryRightStore = MemoryRightStore(), vault: SodiumTestVault = SodiumTestVault(),
                vaultOpening: VaultOpening? = nil) throws {
        // Tests written before agents submit passcodes from the app; agent tests pass false.
        var configuration = configuration
        configuration.appPasscodeEntry = appPasscodeEntry
        configuration.faceConsent = faceConsent
        self.configuration = configuration
        self.clock = clock
        self.store = store
        self.rightStore = rightStore
        self.vault = vault
        observer = RecordingObserver()
        audit = RecordingAuditSink()
        hasher = FakePasscodeHasher()
        sessions = FakeSessionDirectory()
        agents = RecordingAgentObserver()
        queue = SimulatorEventQueue(timeToLive: configuration.simulatorEventTTL, clock: clock)
        // The daemon's registry makes the backends; the fakes stand in through its inputs.
        let made = try BackendRegistry.builtIn.make(configuration.backends,
                                                    inputs: .init(simulatorQueue: queue, passcodeHasher: passcodeHasher ?? hasher))
        // A simulator that is not enabled is still there to drive (its inputs reach no engine).
        fingerprint = made.sensors.lazy.compactMap { $0 as? FingerprintSimulator }.first ?? FingerprintSimulator(queue: queue)
        face = made.sensors.lazy.compactMap { $0 as? FaceSimulator }.first ?? FaceSimulator(queue: queue)
        var products = made.products
        if let sensor {
            products.removeAll { $0.sensor?.modality == sensor.modality }
            products.append(.sensor(sensor))
        }
        let environment = PolicyEngine.Environment(
            clock: clock, store: store, passcodeHasher: made.passcodeHasher,
            domainStateHasher: FakeDomainStateHasher(), audit: audit, observer: observer, sessions: sessions,
            authorizer: authorizer, sessionLookup: sessions, agentObserver: agents,
            vault: vaultOpening ?? VaultOpening(.success(vault)), rightStore: rightStore)
        engine = try PolicyEngine(configuration: configuration, backends: products.compactMap(\.sensor),
                                  listed: products.map(\.listed), environment: environment)
    }

    /// Sets the passcode and enrolls the given fingers and faces for `caller`'s user.
    public func setUp(_ caller: Caller = alice, passcode: String = passcode, fingers: [String] = [], faces: [String] = []) async throws {
        try await engine.setPasscode(current: Passcode(""), new: Passcode(passcode), caller: caller)
        for finger in fingers {
            try await engine.enroll(.fingerprint, label: finger, passcode: Passcode(passcode), caller: caller)
        }
        for face in faces {
            try await engine.enroll(.face, label: face, passcode: Passcode(passcode), caller: caller)
        }
    }

    public func context(_ caller: Caller = alice, _ configure: (inout ContextOptions) -> Void = { _ in }) async throws -> ContextID {
        var options = ContextOptions()
        configure(&options)
        return try await engine.createContext(for: caller, options: options)
    }

    /// Starts an evaluation and returns once it is running (the engine announced the context
    /// active) or already over.
    public func begin(_ policy: LAPolicy, on context: ContextID, by caller: Caller = alice, reason: String = "unlock the vault") async -> RunningEvaluationHandle {
        let (engine, observer) = (self.engine, self.observer)
        let running = observer.expectActivity(of: context)
        let task = Task { () -> Result<EvaluationSuccess, LocalAuthError> in
            defer { observer.meet(running) }
            do throws(LocalAuthError) {
                return .success(try await engine.evaluatePolicy(policy, reason: reason, context: context, caller: caller.client))
            } catch {
                return .failure(error)
            }
        }
        let handle = RunningEvaluationHandle(task: task)
        await observer.wait(for: running)
        // The engine announces the change in the middle of a turn that goes on to show the prompt;
        // one call through the engine returns only after that turn.
        _ = await engine.userState(of: caller.uid)
        return handle
    }

    public func state(of context: ContextID, _ caller: Caller = alice) async throws -> ContextState {
        try await engine.snapshot(of: context, caller: caller.client).state
    }
}

/// An evaluation started by ``EngineHarness/begin(_:on:by:reason:)``.
public struct RunningEvaluationHandle: Sendable {
    let task: Task<Result<EvaluationSuccess, LocalAuthError>, Never>

    /// Waits for the evaluation's end.
    public var result: Result<EvaluationSuccess, LocalAuthError> {
        get async { await task.value }
    }

    /// The LAError it ended with, or nil on success.
    public var errorCode: LAErrorCode? {
        get async {
            if case .failure(let error) = await task.value { return error.code }
            return nil
        }
    }
}
