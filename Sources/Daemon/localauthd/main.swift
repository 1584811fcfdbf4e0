// SPDX-License-Identifier: Apache-2.0
// localauthd: reads its options and configuration, then runs the daemon's units (``Daemon``) in a
// task while the main thread waits (``DaemonProcess``).
import LocalAuthAPI
import LocalAuthBackends
import LocalAuthCore
import LocalAuthDBus
import LocalAuthService
import LocalAuthSystem
import LocalAuthVault

#if canImport(Glibc)
import Glibc
#endif

DaemonExecutors.install()
TPMSealedKey.quietLogging()
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

/// The backends `backends` may name besides providers; the configuration is checked against it.
let registry = BackendRegistry.builtIn
let loaded: ConfigurationLoader.Resolved
do {
    loaded = try ConfigurationLoader.loadResolvingNames(path: options.configPath, builtIn: registry.ids)
} catch {
    fail("\(error)", status: 78)
}
for (id, error) in loaded.skippedProviders {
    log.log(.error, "provider \(id): not started, its descriptor is refused: \(error)")
}
do throws(LocalAuthError) {
    // Providers are checked above; here a built-in backend named twice (by id and alias).
    _ = try registry.rows(selectedBy: loaded.configuration.backends.filter(registry.ids.contains))
} catch {
    fail("\(options.configPath ?? ConfigurationLoader.defaultPath): backends: \(error.message)", status: 78)
}
let stateDirectory = options.stateDirectory
    ?? loaded.configuration.resolvedStateDirectory(environment: getenv("STATE_DIRECTORY").map { ["STATE_DIRECTORY": String(cString: $0)] } ?? [:])

DaemonProcess.serve(
    Daemon.Settings(configuration: loaded.configuration, configPath: options.configPath, stateDirectory: stateDirectory,
                    bus: options.bus, simulatorGroup: loaded.simulatorGroup, providers: loaded.providers,
                    idleExit: options.idleExit, watchdogInterval: ServiceManager.watchdogInterval,
                    loop: DaemonExecutors.loop),
    registry: registry, log: log)
