// SPDX-License-Identifier: Apache-2.0
import LocalAuthBackends
import LocalAuthCore
import LocalAuthDBus
import LocalAuthSystem

extension BackendRegistry {
    /// Adds one row per provider descriptor: each makes a ``ProviderBackend`` that talks to its
    /// process over `connection` (not started; the composition root starts it).
    public mutating func registerProviders(_ descriptors: [ProviderDescriptor], connection: DBusConnection, busAddress: String,
                                           timeout: Duration, enrollmentTurn: Duration?, log: @escaping ProviderBackend.Log) throws(LocalAuthError) {
        for descriptor in descriptors {
            try register(Row(id: descriptor.id) { _ in
                .sensor(ProviderBackend(descriptor: descriptor, connection: connection, busAddress: busAddress, timeout: timeout,
                                        enrollmentTurn: enrollmentTurn, log: log))
            })
        }
    }
}
