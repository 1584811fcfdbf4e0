// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import Synchronization

/// The enrollments that take captures on a provider, one per client connection at most, so
/// that `CancelEnrollment` or the client leaving the bus can cancel its own. The tasks are behind
/// the mutex; cancelling one cancels the provider's enrollment (``CapturingBackend/capture(user:label:progress:)``).
final class EnrollmentRegistry: Sendable {
    /// The modalities whose backend captures (a provider's); the rest enroll at once.
    let capturing: BiometricModalitySet
    private let running = Mutex<[ClientID: (token: UInt64, task: Task<Void, Never>)]>([:])
    private let tokens = Atomic<UInt64>(0)

    init(capturing: BiometricModalitySet) {
        self.capturing = capturing
    }

    /// Runs `body` as the client's enrollment, then `answer` with its outcome; false (and nothing
    /// runs) if one already runs. `answer` runs once the enrollment no longer counts as running,
    /// so a client that has its answer may start the next one at once.
    func start<Outcome: Sendable>(_ client: ClientID, _ body: @escaping @Sendable () async -> Outcome,
                                  then answer: @escaping @Sendable (Outcome) -> Void) -> Bool {
        let token = tokens.add(1, ordering: .relaxed).newValue
        return running.withLock { running in
            guard running[client] == nil else { return false }
            running[client] = (token, Task {
                let outcome = await body()
                self.finished(client, token)
                answer(outcome)
            })
            return true
        }
    }

    /// Cancels the client's enrollment, if one runs.
    func cancel(_ client: ClientID) {
        running.withLock { $0[client] }?.task.cancel()
    }

    private func finished(_ client: ClientID, _ token: UInt64) {
        running.withLock { running in
            if running[client]?.token == token { running[client] = nil }
        }
    }
}
