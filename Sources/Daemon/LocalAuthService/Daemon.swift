// SPDX-License-Identifier: Apache-2.0
import Dispatch
import LocalAuthBackends
import LocalAuthCore
import LocalAuthDBus
import LocalAuthProviders
import LocalAuthSystem
import LocalAuthVault

/// The composition root: makes the daemon's parts from its settings and the backend registry,
/// and runs them as ``DaemonUnit``s.
///
/// Start order (shutdown is the reverse):
/// 1. signals — SIGTERM/SIGINT/SIGHUP become events (first, so none is lost during start-up);
/// 2. bus connection — a lost bus becomes a stop;
/// 3. bus objects — objects exported, clients leaving followed, the bus name taken;
/// 4. providers — provider processes started (their Hello needs the name);
/// 5. engine — serves from construction; shutting down ends evaluations with systemCancel;
/// 6. watchdog, 7. idle exit, 8. reload.
///
/// So on shutdown: reloads and the idle and watchdog timers stop; every evaluation ends with
/// systemCancel and its reply is queued; providers are stopped; the replies are flushed and the
/// connection closed.
public final class Daemon: Sendable {
    /// Why the daemon could not start, with the exit status it should use (sysexits).
    public struct StartError: Error, CustomStringConvertible {
        public let exitStatus: Int32
        public let description: String
    }

    /// What the daemon is run with, read by `main.swift`.
    public struct Settings: Sendable {
        public var configuration: Configuration
        /// The file SIGHUP re-reads; nil: the default file.
        public var configPath: String?
        public var stateDirectory: String
        public var bus: DBusBus
        /// The gid of `simulator_group`.
        public var simulatorGroup: UInt32?
        /// The descriptors of the providers `backends` names.
        public var providers: [ProviderDescriptor]
        /// Seconds without client contexts before stopping (bus activation); nil: never.
        public var idleExit: Double?
        /// How often to ping the service manager's watchdog; nil: it does not watch.
        public var watchdogInterval: Duration?
        /// The thread the bus connection and the engine run on; nil: a new one. localauthd passes
        /// the loop it made the process's default executor, so that every task runs there.
        public var loop: DBusEventLoop?

        public init(configuration: Configuration, configPath: String?, stateDirectory: String, bus: DBusBus,
                    simulatorGroup: UInt32?, providers: [ProviderDescriptor], idleExit: Double?, watchdogInterval: Duration?,
                    loop: DBusEventLoop? = nil) {
            self.configuration = configuration
            self.configPath = configPath
            self.stateDirectory = stateDirectory
            self.bus = bus
            self.simulatorGroup = simulatorGroup
            self.providers = providers
            self.idleExit = idleExit
            self.watchdogInterval = watchdogInterval
            self.loop = loop
        }
    }

    public let engine: PolicyEngine
    /// In start order.
    private let units: [any DaemonUnit]
    private let reloader: ReloadUnit
    private let events: AsyncStream<DaemonEvent>
    private let log: @Sendable (AuditEntry.Severity, String) -> Void

    private init(engine: PolicyEngine, units: [any DaemonUnit], reloader: ReloadUnit, events: AsyncStream<DaemonEvent>,
                 log: @escaping @Sendable (AuditEntry.Severity, String) -> Void) {
        self.engine = engine
        self.units = units
        self.reloader = reloader
        self.events = events
        self.log = log
    }

    /// Makes the parts and starts the units; returns when clients can call. `registry` makes the
    /// configured backends; the providers' rows are added to it here.
    public static func start(_ settings: Settings, registry: BackendRegistry, audit: any AuditSink,
                             log: @escaping @Sendable (AuditEntry.Severity, String) -> Void) async throws(StartError) -> Daemon {
        let (events, continuation) = AsyncStream<DaemonEvent>.makeStream()
        let emit: @Sendable (DaemonEvent) -> Void = { continuation.yield($0) }
        let signals = SignalUnit(emit: emit)
        signals.start()
        var started: [any DaemonUnit] = [signals]
        do throws(StartError) {
            let (engine, units, reloader) = try await compose(settings, registry: registry, audit: audit, log: log, emit: emit)
            for unit in units {
                try await unit.start()
                started.append(unit)
            }
            return Daemon(engine: engine, units: started, reloader: reloader, events: events, log: log)
        } catch {
            for unit in started.reversed() { await unit.shutdown() }
            throw error
        }
    }

    /// The units after the signals, in start order; nothing is started yet.
    private static func compose(_ settings: Settings, registry: BackendRegistry, audit: any AuditSink,
                                log: @escaping @Sendable (AuditEntry.Severity, String) -> Void,
                                emit: @escaping @Sendable (DaemonEvent) -> Void) async throws(StartError) -> (PolicyEngine, [any DaemonUnit], ReloadUnit) {
        let configuration = settings.configuration
        let clock: SystemWallClock
        do {
            clock = try SystemWallClock()
        } catch {
            throw StartError(exitStatus: 78, description: "no boot id: \(error)")
        }
        let store: FileStateStore
        let secret: [UInt8]
        do {
            store = try FileStateStore(directory: settings.stateDirectory)
            secret = try store.installationSecret()
        } catch {
            throw StartError(exitStatus: 73, description: "state directory \(settings.stateDirectory): \(error.message)")
        }
        let connection: DBusConnection
        do {
            connection = try await DBusConnection.connect(to: settings.bus, sendBuffer: 8 * 1024, on: settings.loop)
        } catch {
            throw StartError(exitStatus: 69, description: "cannot connect to \(settings.bus): \(error)")
        }

        let queue = SimulatorEventQueue(timeToLive: configuration.simulatorEventTTL, clock: clock)
        let observer = BusObserver(connection: connection, clock: clock)
        let engine: PolicyEngine
        let made: BackendRegistry.Made
        do {
            var registry = registry
            try registry.registerProviders(settings.providers, connection: connection, busAddress: (try? settings.bus.resolvedAddress()) ?? "",
                                           timeout: .milliseconds(Int(configuration.providerTimeout * 1000)),
                                           enrollmentTurn: configuration.sensorTurnLength > 0 ? .milliseconds(Int(configuration.sensorTurnLength * 1000)) : nil,
                                           log: log)
            made = try registry.make(configuration.backends, inputs: .init(simulatorQueue: queue))
            var environment = PolicyEngine.Environment(
                clock: clock, store: store, passcodeHasher: made.passcodeHasher,
                domainStateHasher: try KeyedDomainStateHasher(installationSecret: secret),
                audit: audit, observer: observer, sessions: LogindSessions(),
                authorizer: PolkitAuthorizer(connection: connection),
                sessionLookup: LogindSessions(), agentObserver: AgentCaller(connection: connection),
                consentStore: store, cookies: SodiumCookieSource())
            environment.messages = Self.loadTranslations(log: log)
            let stateDirectory = settings.stateDirectory
            environment.vault = VaultOpening { Self.openVault(configuration, stateDirectory: stateDirectory, log: log) }
            environment.rightStore = Self.openRightStore(stateDirectory: settings.stateDirectory, log: log)
            engine = try PolicyEngine(
                configuration: configuration, backends: made.sensors, listed: made.listed, environment: environment,
                // Calls read on the loop run there, in the senders' queues, in the engine's isolation (BusTable).
                executor: connection.queue.makeSerialExecutor())
        } catch {
            connection.close()
            throw StartError(exitStatus: 70, description: error.message)
        }
        observer.attach(engine)

        let providers = made.sensors.compactMap { $0 as? ProviderBackend }
        let directory = CallerDirectory<PolicyEngine>(connection: connection, identify: ProcessIdentity.app(ofProcess:), limits: RequestQueueLimits(configuration), log: log)
        let enrollments = EnrollmentRegistry(capturing: BiometricModalitySet(providers.map(\.modality)))
        let rows = BusTable(directory: directory,
                            stage: AccessStage(engine: engine, daemonUser: currentUserID(), simulatorGroup: settings.simulatorGroup),
                            loop: connection.queue)
        let objects = BusObjectsUnit(
            connection: connection, bus: settings.bus, observer: observer, enrollments: enrollments,
            rows: rows,
            manager: ManagerObject(observer: observer, enrollments: enrollments),
            context: ContextObject(),
            rights: RightsObject(),
            simulator: SimulatorObject(queue: queue, sensors: made.simulators, observer: observer),
            providerHost: ProviderHostObject(backends: providers, log: log))
        let status: @Sendable () async -> String = { await Self.status(of: engine) }
        let reloader = ReloadUnit(configPath: settings.configPath, builtIn: registry.ids, engine: engine, status: status, log: log)
        var units: [any DaemonUnit] = [
            BusConnectionUnit(connection: connection, emit: emit),
            objects,
            ProvidersUnit(providers: providers) { Task { observer.backendsChanged(await ManagerObject.backends(engine)) } },
            EngineUnit(engine: engine),
        ]
        if let interval = settings.watchdogInterval {
            units.append(WatchdogUnit(interval: interval, loop: connection.queue, status: status))
        }
        if let idleExit = settings.idleExit {
            units.append(IdleExitUnit(idleExit: idleExit, engine: engine, emit: emit))
        }
        units.append(reloader)
        return (engine, units, reloader)
    }

    /// `STATUS=` text: what the daemon is doing now.
    public func status() async -> String {
        await Self.status(of: engine)
    }

    /// The vault of rights' keys and secrets, from `key_protection` and `tpm_tcti`, with its
    /// wrapping key in `<state>/sealing`; opened at the first rights call (``VaultOpening``). When it cannot be opened (the TPM that sealed the key is
    /// gone, the key file is not private, …) the daemon still serves: the cause is logged, and every
    /// rights call fails with Failed naming it.
    static func openVault(_ configuration: Configuration, stateDirectory: String,
                          log: @escaping @Sendable (AuditEntry.Severity, String) -> Void) -> Result<any RightVault, RightVaultError> {
        let choice = KeyProtectionChoice(rawValue: configuration.keyProtection.rawValue) ?? .auto
        let directory = SealingSetup.directory(state: stateDirectory)
        do throws(RightVaultError) {
            let sealer = try SealingSetup.open(choice, tcti: configuration.tpmTCTI, directory: directory) { log(.notice, "rights: \($0)") }
            log(.info, sealer.protection == .tpm2
                ? "rights: keys and secrets are sealed with a wrapping key sealed to the TPM 2.0 at \(configuration.tpmTCTI)"
                : "rights: keys and secrets are sealed with the root-only wrapping key in \(directory)")
            return .success(Vault(sealer: sealer))
        } catch {
            log(.error, "rights: unavailable, the key vault did not open (key_protection = \(choice.rawValue)): \(error.message)")
            return .failure(RightVaultError(error.kind, "Rights are unavailable: the service could not open its key vault (\(error.message))."))
        }
    }

    /// Where users' rights are saved (`<state>/rights`); nil, logged, when that directory cannot
    /// be opened: the daemon still serves, and every rights call says rights are unavailable.
    static func openRightStore(stateDirectory: String, log: @Sendable (AuditEntry.Severity, String) -> Void) -> FileRightStore? {
        do {
            return try FileRightStore(directory: stateDirectory)
        } catch {
            log(.error, "rights: unavailable, their directory in \(stateDirectory) cannot be opened: \(error.message)")
            return nil
        }
    }

    /// The agents' sentences in every language installed (``MessageCatalogFile``); a catalog
    /// that cannot be read is logged and that language falls back to English.
    static func loadTranslations(log: @Sendable (AuditEntry.Severity, String) -> Void) -> MessageCatalog {
        guard let directory = MessageCatalogFile.defaultDirectory else { return MessageCatalog() }
        let loaded = MessageCatalogFile.load(directory: directory)
        for problem in loaded.problems { log(.warning, "translations: \(problem)") }
        return loaded.catalog
    }

    private static func status(of engine: PolicyEngine) async -> String {
        let counts = await engine.counts()
        return "\(counts.contexts) contexts, \(counts.evaluations) evaluations running"
    }

    /// Serves until a stop event (a signal, idle exit, the bus gone), reloading on SIGHUP, then
    /// shuts the units down in reverse start order.
    public func run() async {
        eventLoop: for await event in events {
            switch event {
            case .stop(let reason):
                log(.notice, "stopping: \(reason)")
                break eventLoop
            case .reload:
                await reloader.reload()
            }
        }
        ServiceManager.notify("STOPPING=1")
        for unit in units.reversed() { await unit.shutdown() }
    }
}
