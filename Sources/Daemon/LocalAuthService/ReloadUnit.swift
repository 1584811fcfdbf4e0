// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthSystem

/// SIGHUP: re-reads the configuration file and applies what can change while running; a bad
/// file is refused and the running configuration kept. The daemon's event loop calls
/// ``reload()`` between events, so reloads never overlap and none runs during shutdown; the unit
/// has nothing to start or stop.
struct ReloadUnit: DaemonUnit {
    let name = "reload"
    let configPath: String?
    /// The backend registry's ids, which the file is checked against.
    let builtIn: [String]
    let engine: PolicyEngine
    let status: @Sendable () async -> String
    let log: @Sendable (AuditEntry.Severity, String) -> Void

    func start() {}

    func shutdown() {}

    func reload() async {
        ServiceManager.notifyReloading()
        do {
            let reloaded = try ConfigurationLoader.load(path: configPath, builtIn: builtIn)
            let needRestart = await engine.reload(reloaded)
            log(.notice, "configuration reloaded" + (needRestart.isEmpty ? "" : "; a restart applies: \(needRestart.joined(separator: ", "))"))
        } catch {
            log(.error, "configuration not reloaded, keeping the running one: \(error)")
        }
        ServiceManager.notify("READY=1\nSTATUS=\(await status())")
    }
}
