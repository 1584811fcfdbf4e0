// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthDBus
import Synchronization

/// `/org/localauth/LocalAuthentication1/providers`, interface `…ProviderHost`: where providers
/// report. Everyone may call it on the bus; only the unique name a backend believes (it owns
/// the provider's bus name and has the descriptor's uid, checked at the handshake) is heard.
/// Anyone else gets AccessDenied and a log line (one per connection, so a flood does not fill the
/// journal), and nothing changes. Runs on the connection's queue, synchronously: the check needs
/// no round trip.
public final class ProviderHostObject: Sendable {
    let backends: [ProviderBackend]
    let log: ProviderBackend.Log
    /// Connections whose refusal was logged; forgotten all at once when full.
    private let refused = Mutex<Set<String>>([])
    static let refusalsRemembered = 1024

    public init(backends: [ProviderBackend], log: @escaping ProviderBackend.Log) {
        self.backends = backends
        self.log = log
    }

    /// The ProviderHost's table: one row per member of ``LocalAuthInterface/providerHost``,
    /// answered on the connection's queue. ``admit(_:)`` runs before it.
    public var table: DBusVTable {
        func row<each Input: DBusArgument>(
            _ method: BusMethod<repeat each Input, BusWire.Nothing>,
            _ body: @escaping @Sendable (ProviderBackend, repeat (each Input).Value) throws(DBusError) -> Void
        ) -> DBusVTable.Method {
            DBusVTable.Method(method) { [self] (call, arguments: repeat (each Input).Value) throws(DBusError) in
                let backend = try registered(call)
                do throws(DBusError) {
                    try body(backend, repeat each arguments)
                } catch {
                    backend.logReport(.warning, "provider \(backend.id): \(call.member) refused: \(error.message)")
                    throw error
                }
                return .empty
            }
        }
        return DBusVTable(LocalAuthInterface.providerHost, methods: [
            row(ProviderHostMethod.reportAttempt) { backend, session, result, detail throws(DBusError) in
                try backend.reportAttempt(session: session, result: result, detail: detail)
            },
            row(ProviderHostMethod.reportEnrollment) { backend, enrollment, status, completedStages, detail throws(DBusError) in
                try backend.reportEnrollment(enrollment, status: status, completedStages: completedStages, detail: detail)
            },
            row(ProviderHostMethod.reportAvailability) { backend, available throws(DBusError) in
                backend.reportAvailability(available)
            },
        ])
    }

    /// This object's authorization stage, "registered provider only": before the
    /// table looks at the member or its arguments, a caller that is not a running provider's
    /// connection is refused `AccessDenied`, so a stranger learns nothing from other errors.
    @Sendable public func admit(_ call: DBusMethodCall) throws(DBusError) {
        _ = try registered(call)
    }

    private func registered(_ call: DBusMethodCall) throws(DBusError) -> ProviderBackend {
        guard let sender = call.sender, let backend = backends.first(where: { $0.isOwner(sender) }) else {
            let first = refused.withLock { refused in
                if refused.count >= Self.refusalsRemembered { refused.removeAll() }
                return refused.insert(call.sender ?? "").inserted
            }
            if first {
                log(.warning, "ProviderHost.\(call.member) from \(call.sender ?? "an unnamed connection") refused: it is not the connection of any enabled, running provider (further refusals of this connection are not logged)")
            }
            throw .accessDenied("Only an enabled provider's registered connection may report to localauthd.")
        }
        return backend
    }
}
