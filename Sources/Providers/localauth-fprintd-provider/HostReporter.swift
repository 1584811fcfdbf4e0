// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus

/// Sends reports to localauthd's ProviderHost in the order they were made, one at a time, each
/// bounded, so that a slow or vanished localauthd never stalls the provider.
///
/// Reports go to the unique name that owned `org.localauth.LocalAuthentication1` when the report
/// was made, never to the well-known name, so a report cannot reach a later owner.
final class HostReporter: Sendable {

    enum Report: Sendable {
        case attempt(session: UInt64, result: AttemptResult, detail: String)
        case enrollment(id: UInt64, status: EnrollmentReport, completedStages: UInt32, detail: String)
        case availability(Bool)

        var member: String {
            switch self {
            case .attempt: ProviderHostMethod.reportAttempt.member
            case .enrollment: ProviderHostMethod.reportEnrollment.member
            case .availability: ProviderHostMethod.reportAvailability.member
            }
        }

        /// Calls the report's method on `host`.
        func send(through host: DBusProxy) async throws {
            switch self {
            case .attempt(let session, let result, let detail):
                try await host.call(ProviderHostMethod.reportAttempt, session, result.rawValue, detail)
            case .enrollment(let id, let status, let stages, let detail):
                try await host.call(ProviderHostMethod.reportEnrollment, id, status.rawValue, stages, detail)
            case .availability(let available):
                try await host.call(ProviderHostMethod.reportAvailability, available)
            }
        }
    }

    private let continuation: AsyncStream<(host: String, report: Report)>.Continuation

    init(connection: DBusConnection, log: @escaping @Sendable (String) -> Void) {
        let (stream, continuation) = AsyncStream<(host: String, report: Report)>.makeStream()
        self.continuation = continuation
        Task(executorPreference: connection.queue) {
            for await (host, report) in stream {
                do {
                    try await report.send(through: DBusProxy(LocalAuthInterface.providerHost, on: connection, destination: host,
                                                             path: LocalAuthBusNames.providerHostPath, timeout: .seconds(5)))
                } catch {
                    log("localauthd (\(host)) did not take \(report.member): \(error)")
                }
            }
        }
    }

    func send(_ report: Report, to host: String) {
        continuation.yield((host, report))
    }
}
