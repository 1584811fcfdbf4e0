// localauthd: wiring only — options, configuration, logging, signals, the service.
import Dispatch
import LocalAuthCore
import LocalAuthDBus
import LocalAuthService
import LocalAuthSystem

#if canImport(Glibc)
import Glibc
#endif

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
    print("localauthd \(BusContract.version)")
    exit(0)
}

let configuration: Configuration
do {
    configuration = try ConfigurationLoader.load(path: options.configPath)
} catch {
    fail("\(error)", status: 78)
}
var simulatorGroup: UInt32?
if !configuration.simulatorGroup.isEmpty {
    guard let gid = groupID(named: configuration.simulatorGroup) else {
        fail("\(options.configPath ?? ConfigurationLoader.defaultPath): simulator_group: no group named \"\(configuration.simulatorGroup)\"", status: 78)
    }
    simulatorGroup = gid
}
let stateDirectory = options.stateDirectory
    ?? configuration.resolvedStateDirectory(environment: getenv("STATE_DIRECTORY").map { ["STATE_DIRECTORY": String(cString: $0)] } ?? [:])

// Ignore the default actions so DispatchSource can deliver SIGTERM/SIGINT as events.
for signalNumber in [SIGTERM, SIGINT] { signal(signalNumber, SIG_IGN) }
signal(SIGPIPE, SIG_IGN)
let (stopRequests, stopRequested) = AsyncStream<Int32>.makeStream()
// Top-level closures are main-actor isolated: their handlers must run on the main queue.
let signalSources = [SIGTERM, SIGINT].map { signalNumber in
    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
    source.setEventHandler { stopRequested.yield(signalNumber) }
    source.resume()
    return source
}

let service: LocalAuthService
do {
    service = try await LocalAuthService.start(
        configuration: configuration, stateDirectory: stateDirectory, bus: options.bus,
        simulatorGroup: simulatorGroup, audit: StderrAuditSink())
} catch {
    fail(error.description, status: error.exitStatus)
}
service.onDisconnect { stopRequested.yield(0) }
writeToStandardError("<5>localauthd \(BusContract.version): serving \(BusContract.busName), state in \(stateDirectory)\n")

for await signalNumber in stopRequests {
    writeToStandardError(signalNumber == 0 ? "<3>localauthd: the bus went away; stopping\n" : "<5>localauthd: stopping on signal \(signalNumber)\n")
    break
}
await service.shutdown()
withExtendedLifetime(signalSources) {}
exit(0)
