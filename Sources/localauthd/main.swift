// SPDX-License-Identifier: Apache-2.0
// localauthd: wiring only — options, configuration, logging, signals, systemd notification, the service.
import Dispatch
import LocalAuthCore
import LocalAuthDBus
import LocalAuthService
import LocalAuthSystem

#if canImport(Glibc)
import Glibc
#endif

let log = SystemLog()

func fail(_ message: String, status: Int32) -> Never {
    writeToStandardError("localauthd: \(message)\n")
    exit(status)
}

let options: DaemonOptions
do {
    options = try DaemonOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    fail("\(error)\n\(DaemonOptions.usage)", status: 64)
}
if options.showHelp {
    print(DaemonOptions.usage)
    exit(0)
}
if options.showVersion {
    print("localauthd \(LocalAuthInterface.version)")
    exit(0)
}

let configuration: Configuration
let simulatorGroup: UInt32?
let providers: [ProviderDescriptor]
do {
    let loaded = try ConfigurationLoader.loadResolvingNames(path: options.configPath)
    configuration = loaded.configuration
    simulatorGroup = loaded.simulatorGroup
    providers = loaded.providers
} catch {
    fail("\(error)", status: 78)
}
let stateDirectory = options.stateDirectory
    ?? configuration.resolvedStateDirectory(environment: getenv("STATE_DIRECTORY").map { ["STATE_DIRECTORY": String(cString: $0)] } ?? [:])

/// What the main loop reacts to.
enum DaemonEvent: Sendable {
    case stop(reason: String)
    case reload
}

// Ignore the default actions so DispatchSource can deliver the signals as events. Top-level
// closures are main-actor isolated: their handlers must run on the main queue.
for signalNumber in [SIGTERM, SIGINT, SIGHUP] { signal(signalNumber, SIG_IGN) }
signal(SIGPIPE, SIG_IGN)
let (events, emit) = AsyncStream<DaemonEvent>.makeStream()
let signalSources = [(SIGTERM, DaemonEvent.stop(reason: "SIGTERM")), (SIGINT, .stop(reason: "SIGINT")), (SIGHUP, .reload)].map { signalNumber, event in
    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
    source.setEventHandler { emit.yield(event) }
    source.resume()
    return source
}

let service: LocalAuthService
do {
    service = try await LocalAuthService.start(
        configuration: configuration, stateDirectory: stateDirectory, bus: options.bus,
        simulatorGroup: simulatorGroup, providers: providers, audit: log, log: { [log] in log.log($0, $1) })
} catch {
    fail(error.description, status: error.exitStatus)
}
service.onDisconnect { emit.yield(.stop(reason: "the bus went away")) }
if let interval = ServiceManager.watchdogInterval { service.startWatchdog(every: interval) }
ServiceManager.notify("READY=1\nSTATUS=\(await service.status())")
log.log(.notice, "localauthd \(LocalAuthInterface.version): serving \(LocalAuthBusNames.busName), state in \(stateDirectory)")

// Bus activation: leave when no client has held a context for `idleExit` seconds (state is on disk).
let idleTimer = options.idleExit.map { idleExit in
    let timer = DispatchSource.makeTimerSource(queue: .main)
    var idleSince: UInt64?
    timer.schedule(deadline: .now() + .seconds(1), repeating: .milliseconds(Int(min(idleExit, 5) * 1000)))
    timer.setEventHandler {
        Task { @MainActor in
            let now = DispatchTime.now().uptimeNanoseconds
            guard await service.engine.counts().contexts == 0 else { idleSince = nil; return }
            let since = idleSince ?? now
            idleSince = since
            if Double(now - since) / 1e9 >= idleExit { emit.yield(.stop(reason: "idle for \(Int(idleExit)) s")) }
        }
    }
    timer.resume()
    return timer
}

eventLoop: for await event in events {
    switch event {
    case .stop(let reason):
        log.log(.notice, "stopping: \(reason)")
        break eventLoop
    case .reload:
        ServiceManager.notifyReloading()
        do {
            let reloaded = try ConfigurationLoader.load(path: options.configPath)
            let needRestart = await service.engine.reload(reloaded)
            log.log(.notice, "configuration reloaded" + (needRestart.isEmpty ? "" : "; a restart applies: \(needRestart.joined(separator: ", "))"))
        } catch {
            log.log(.error, "configuration not reloaded, keeping the running one: \(error)")
        }
        ServiceManager.notify("READY=1\nSTATUS=\(await service.status())")
    }
}
ServiceManager.notify("STOPPING=1")
await service.shutdown()
withExtendedLifetime((signalSources, idleTimer)) {}
exit(0)
