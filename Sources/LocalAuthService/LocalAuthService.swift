// SPDX-License-Identifier: Apache-2.0
import Dispatch
import LocalAuthBackends
import LocalAuthCore
import LocalAuthDBus
import LocalAuthProviders
import LocalAuthSystem
import Synchronization

/// The daemon's bus side, wired: state, backends, engine, the three objects and the bus name.
public final class LocalAuthService: Sendable {
    /// Why the service could not start, with the exit status a daemon should use (sysexits).
    public struct StartError: Error, CustomStringConvertible {
        public let exitStatus: Int32
        public let description: String
    }

    public let engine: PolicyEngine
    private let connection: DBusConnection
    /// The enabled providers, in `backends` order.
    public let providers: [ProviderBackend]
    private let watchdog = Mutex<WatchdogSlot>(WatchdogSlot())

    struct WatchdogSlot: @unchecked Sendable {
        // DispatchSource is thread-safe; the mutex guards the slot.
        var source: (any DispatchSourceTimer)?
    }

    private init(engine: PolicyEngine, connection: DBusConnection, providers: [ProviderBackend]) {
        self.engine = engine
        self.connection = connection
        self.providers = providers
    }

    /// Loads state, connects, exports the objects and takes the bus name; returns when clients can call.
    /// Providers (`providers`, the descriptors of the provider ids in `backends`) are started
    /// then; each is unavailable until its handshake.
    public static func start(configuration: Configuration, stateDirectory: String, bus: DBusBus,
                             simulatorGroup: UInt32?, providers descriptors: [ProviderDescriptor] = [], audit: any AuditSink,
                             log: @escaping @Sendable (AuditEntry.Severity, String) -> Void) async throws(StartError) -> LocalAuthService {
        let clock = SystemWallClock()
        let store: FileStateStore
        let secret: [UInt8]
        do {
            store = try FileStateStore(directory: stateDirectory)
            secret = try store.installationSecret()
        } catch {
            throw StartError(exitStatus: 73, description: "state directory \(stateDirectory): \(error.message)")
        }
        let connection: DBusConnection
        do {
            connection = try await DBusConnection.connect(to: bus)
        } catch {
            throw StartError(exitStatus: 69, description: "cannot connect to \(bus): \(error)")
        }

        let queue = SimulatorEventQueue(timeToLive: configuration.simulatorEventTTL, clock: clock)
        let fingerprint = configuration.backends.contains("fingerprint") ? FingerprintSimulator(queue: queue) : nil
        let face = configuration.backends.contains("face") ? FaceSimulator(queue: queue) : nil
        let busAddress = (try? bus.resolvedAddress()) ?? ""
        let providers = descriptors.map { descriptor in
            ProviderBackend(descriptor: descriptor, connection: connection, busAddress: busAddress,
                            timeout: .milliseconds(Int(configuration.providerTimeout * 1000)), log: log)
        }
        let backends: [any BiometricBackend] = configuration.backends.compactMap { id in
            switch id {
            case "fingerprint": fingerprint
            case "face": face
            default: providers.first { $0.id == id }
            }
        }
        let observer = BusObserver(connection: connection, clock: clock)
        let engine: PolicyEngine
        do {
            let hasher = configuration.backends.contains("passcode") ? try Argon2idPasscodeHasher() : nil
            engine = try PolicyEngine(
                configuration: configuration, backends: backends,
                environment: .init(clock: clock, store: store, passcodeHasher: hasher,
                                   domainStateHasher: try KeyedDomainStateHasher(installationSecret: secret),
                                   audit: audit, observer: observer, sessions: LogindSessions(),
                                   authorizer: PolkitAuthorizer(connection: connection),
                                   sessionLookup: LogindSessions(), agentObserver: AgentCaller(connection: connection),
                                   consentStore: store, cookies: SodiumCookieSource()))
        } catch {
            connection.close()
            throw StartError(exitStatus: 70, description: error.message)
        }
        observer.attach(engine)

        let directory = CallerDirectory(connection: connection, limits: RequestQueueLimits(configuration), log: log)
        let enrollments = EnrollmentRegistry(capturing: Set(providers.map(\.modality)))
        let rows = BusTable(directory: directory,
                            stage: AccessStage(engine: engine, daemonUser: currentUserID(), simulatorGroup: simulatorGroup))
        let manager = ManagerObject(engine: engine, observer: observer, enrollments: enrollments,
                                    identify: ProcessIdentity.app(ofProcess:))
        let providerHost = ProviderHostObject(backends: providers, log: log)
        let simulator = SimulatorObject(engine: engine, queue: queue, fingerprint: fingerprint, face: face, observer: observer)
        do {
            try connection.register(path: LocalAuthBusNames.managerPath, table: manager.table(rows),
                                    children: ["context", "providers", "simulator"])
            try connection.register(path: LocalAuthBusNames.contextRoot, subtree: true,
                                    table: ContextObject(engine: engine).table(rows)) { call throws(DBusError) in _ = try ContextObject.id(call) }
            try connection.register(path: LocalAuthBusNames.simulatorPath, table: simulator.table(rows))
            try connection.register(path: LocalAuthBusNames.providerHostPath, table: providerHost.table, admit: providerHost.admit)
            let trimmer = HeapTrimmer()
            _ = try await connection.watchNameOwners { change in
                guard change.newOwner == nil, change.name.hasPrefix(":") else { return }
                let client = ClientID(change.name)
                enrollments.cancel(client)
                directory.senderLeft(change.name) {
                    // Again after its queued requests: an Enroll among them may have started since.
                    enrollments.cancel(client)
                    let dropped = await engine.clientDisconnected(client)
                    observer.forget(client)
                    trimmer.released(contexts: dropped)
                }
            }
            try await connection.requestName(LocalAuthBusNames.busName)
            for provider in providers {
                provider.onChange { Task { observer.backendsChanged(await ManagerObject.backends(engine)) } }
                try await provider.start()
            }
        } catch {
            providers.forEach { $0.stop() }
            connection.close()
            throw StartError(exitStatus: 69, description: "cannot serve \(LocalAuthBusNames.busName) on \(bus): \(error)")
        }
        return LocalAuthService(engine: engine, connection: connection, providers: providers)
    }

    /// `STATUS=` text: what the service is doing now.
    public func status() async -> String {
        let counts = await engine.counts()
        return "\(counts.contexts) contexts, \(counts.evaluations) evaluations running"
    }

    /// Pings the service manager's watchdog every `interval`, from the queue that serves the bus
    /// and through the engine, so a stuck bus loop or a stuck engine stops the pings.
    public func startWatchdog(every interval: Duration) {
        let source = DispatchSource.makeTimerSource(queue: connection.queue)
        let nanoseconds = Int(interval.components.seconds) * 1_000_000_000 + Int(interval.components.attoseconds / 1_000_000_000)
        source.schedule(deadline: .now(), repeating: .nanoseconds(nanoseconds), leeway: .milliseconds(10))
        source.setEventHandler { [weak self] in
            guard let self else { return }
            Task { ServiceManager.notify("WATCHDOG=1\nSTATUS=\(await self.status())") }
        }
        source.resume()
        watchdog.withLock { $0.source = source }
    }

    /// Ends every evaluation with systemCancel, sends the replies, and leaves the bus.
    public func shutdown() async {
        watchdog.withLock { $0.source?.cancel() }
        await engine.shutdown()
        providers.forEach { $0.stop() }
        connection.flush()
        connection.close()
    }

    /// Called (on the connection's queue) if the bus goes away.
    public func onDisconnect(_ handler: @escaping @Sendable () -> Void) {
        connection.onDisconnect(handler)
    }
}
