// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthProviders

/// The provider processes the registry made: started once the bus name is taken (a provider's
/// Hello goes to it); each is unavailable until its handshake. Shut down after the engine, so an
/// evaluation running at shutdown ends with systemCancel rather than a lost sensor.
struct ProvidersUnit: DaemonUnit {
    let name = "providers"
    let providers: [ProviderBackend]
    /// Called when a provider's availability or detail changes (`Backends`).
    let changed: @Sendable () -> Void

    func start() async throws(Daemon.StartError) {
        for provider in providers {
            provider.onChange(changed)
            do {
                try await provider.start()
            } catch {
                shutdown()
                throw Daemon.StartError(exitStatus: 69, description: "cannot start provider \(provider.id): \(error)")
            }
        }
    }

    func shutdown() {
        providers.forEach { $0.stop() }
    }
}
