// SPDX-License-Identifier: Apache-2.0
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

    public func handle(_ call: DBusMethodCall) throws(DBusError) -> DBusMethodReply {
        let interface = ProviderProtocol.host
        if let name = call.interface, name != interface.name {
            throw DBusError(.unknownInterface, "This object has no interface \"\(name)\"; it implements \(interface.name).")
        }
        guard let method = interface.method(call.member) else {
            throw DBusError(.unknownMethod, "\(interface.name) has no method \"\(call.member)\".")
        }
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
        do throws(DBusError) {
            try call.requireSignature(method.inputSignature)
            var arguments = call.reader
            switch call.member {
            case "ReportAttempt":
                try backend.reportAttempt(session: try arguments.uint64(), result: try arguments.string(), detail: try arguments.string())
            case "ReportEnrollment":
                try backend.reportEnrollment(try arguments.uint64(), status: try arguments.string(), completedStages: try arguments.uint32(),
                                             detail: try arguments.string())
            case "ReportAvailability":
                backend.reportAvailability(try arguments.bool())
            default:
                throw DBusError(.unknownMethod, "\(interface.name) has no method \"\(call.member)\".")
            }
        } catch {
            log(.warning, "provider \(backend.id): \(call.member) refused: \(error.message)")
            throw error
        }
        return .empty
    }
}
