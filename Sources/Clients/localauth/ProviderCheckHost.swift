// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus
import Synchronization

/// The stand-in for localauthd that `localauth provider check` puts on the bus: it owns
/// `org.localauth.LocalAuthentication1`, serves `ProviderHost` at the daemon's path, answers every
/// report at once (as localauthd does) and records it for the check to judge. Like localauthd it
/// believes only the provider's unique name; anyone else gets AccessDenied.
final class ProviderCheckHost: Sendable {
    /// One call the provider made to ProviderHost.
    enum Report: Sendable, CustomStringConvertible {
        case attempt(session: UInt64, result: String, detail: String)
        case enrollment(id: UInt64, status: String, completedStages: UInt32, detail: String)
        case availability(Bool)
        /// A report whose arguments were not of the interface's types, with why.
        case malformed(member: String, why: String)

        var description: String {
            switch self {
            case .attempt(let session, let result, let detail): "ReportAttempt(\(session), \"\(result)\", \"\(detail)\")"
            case .enrollment(let id, let status, let stages, let detail): "ReportEnrollment(\(id), \"\(status)\", \(stages), \"\(detail)\")"
            case .availability(let available): "ReportAvailability(\(available))"
            case .malformed(let member, let why): "\(member) with bad arguments (\(why))"
            }
        }
    }

    let connection: DBusConnection
    private struct State {
        var provider: String?
        var reports: [Report] = []
        /// The waiting ``next(within:)`` and its ticket, which its timer names when it expires.
        var waiter: (ticket: UInt64, continuation: CheckedContinuation<Report?, Never>)?
        var tickets: UInt64 = 0
    }
    private let state = Mutex(State())

    private init(connection: DBusConnection) {
        self.connection = connection
    }

    /// Connects to `address`, owns localauthd's bus name there and serves ProviderHost.
    static func start(on address: String) async throws(CLIError) -> ProviderCheckHost {
        let connection: DBusConnection
        do {
            connection = try await DBusConnection.connect(to: .address(address))
        } catch {
            throw .unreachable("cannot connect to the bus at \(address): \(error)")
        }
        do {
            try await connection.requestName(LocalAuthBusNames.busName)
        } catch {
            connection.close()
            throw .temporary("cannot own \(LocalAuthBusNames.busName) on the bus at \(address) (\(error)); a localauthd runs there: check your provider on a bus of its own (omit --bus)")
        }
        let host = ProviderCheckHost(connection: connection)
        let interface = LocalAuthInterface.providerHost
        do {
            try connection.register(path: LocalAuthBusNames.providerHostPath,
                                    introspectionXML: DBusInterfaceDescription.document([interface])) { [weak host] call in
                guard let host else { throw DBusError(.failed, "provider check is over") }
                return try host.handle(call, interface: interface)
            }
        } catch {
            connection.close()
            throw .failed("cannot serve \(interface.name): \(error)")
        }
        return host
    }

    /// From now on reports from `uniqueName` (the provider's connection) are believed.
    func believe(_ uniqueName: String) {
        state.withLock { $0.provider = uniqueName }
    }

    private func handle(_ call: DBusMethodCall, interface: DBusInterfaceDescription) throws(DBusError) -> DBusMethodReply {
        guard let sender = call.sender, state.withLock({ $0.provider == sender }) else {
            throw DBusError(.accessDenied, "\(call.sender ?? "?") is not the provider under test.")
        }
        guard call.interface == nil || call.interface == interface.name, let method = interface.method(call.member) else {
            throw DBusError(.unknownMethod, "No method \(call.member) on \(interface.name).")
        }
        do throws(DBusError) {
            try call.requireSignature(method.inputSignature)
        } catch {
            record(.malformed(member: call.member, why: error.message))
            throw error
        }
        var reader = call.reader
        switch method.name {
        case "ReportAttempt":
            record(.attempt(session: try reader.uint64(), result: try reader.string(), detail: try reader.string()))
        case "ReportEnrollment":
            record(.enrollment(id: try reader.uint64(), status: try reader.string(), completedStages: try reader.uint32(), detail: try reader.string()))
        default:
            record(.availability(try reader.bool()))
        }
        return .empty
    }

    private func record(_ report: Report) {
        let waiter = state.withLock { state -> CheckedContinuation<Report?, Never>? in
            guard let waiter = state.waiter else {
                state.reports.append(report)
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: report)
    }

    /// The next report not yet taken, waiting at most `timeout`; nil if none came.
    func next(within timeout: Duration) async -> Report? {
        await withCheckedContinuation { continuation in
            let ticket = state.withLock { state -> UInt64? in
                guard state.reports.isEmpty else {
                    continuation.resume(returning: state.reports.removeFirst())
                    return nil
                }
                state.tickets += 1
                state.waiter = (state.tickets, continuation)
                return state.tickets
            }
            guard let ticket else { return }
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                self?.expire(ticket)
            }
        }
    }

    private func expire(_ ticket: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Report?, Never>? in
            guard let waiter = state.waiter, waiter.ticket == ticket else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: nil)
    }

    /// Forgets reports not yet taken (those of a step that failed).
    func discardPending() {
        state.withLock { $0.reports.removeAll() }
    }

    func close() {
        connection.close()
    }
}
