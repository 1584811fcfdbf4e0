// SPDX-License-Identifier: Apache-2.0
import Dispatch

/// The engine's serial executor when its embedder gives none: a dispatch queue of its own.
final class EngineQueue: SerialExecutor {
    private let queue = DispatchQueue(label: "localauth.engine")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}
