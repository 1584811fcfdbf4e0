// SPDX-License-Identifier: Apache-2.0
import Dispatch

/// Runs all of this module's asynchronous work on its own dispatch queue rather than Swift's
/// cooperative pool, so that `canEvaluatePolicy(_:error:)`, which must block its caller, never waits
/// for a pool thread it might itself be occupying.
final class ClientExecutor: TaskExecutor {
    static let shared = ClientExecutor()
    private let queue = DispatchQueue(label: "org.localauth.LocalAuthentication.client", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
