// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import Synchronization

/// The part every simulated sensor shares: connection state, the armed session, and handing
/// inputs either to that session or to the queue.
final class SimulatedSensor: Sendable {
    private struct State {
        var connected = true
        var armed: SensorSession?
    }

    let modality: BiometricModality
    private let queue: SimulatorEventQueue
    private let state = Mutex(State())

    init(modality: BiometricModality, queue: SimulatorEventQueue) {
        self.modality = modality
        self.queue = queue
    }

    var isConnected: Bool { state.withLock { $0.connected } }

    func arm(_ session: SensorSession) {
        state.withLock { $0.armed = session }
    }

    func disarm(_ sessionID: UInt64) {
        state.withLock { state in
            if state.armed?.id == sessionID { state.armed = nil }
        }
    }

    func takeQueuedAttempt(for session: SensorSession) -> AttemptEvent? {
        queue.take(modality).map { judge in judge(session) }
    }

    /// Presents one input: judged and delivered to the armed evaluation, or queued for the next.
    ///
    /// The input is queued while the sensor lock is held, so an `arm` cannot slip in between
    /// "nothing is armed" and the enqueue (the engine arms, then takes queued inputs: it either
    /// sees the input queued or is armed before we look). A session that refuses the input
    /// (no longer armed) may already have been replaced by a new one, which is offered it next.
    func present(_ judge: @escaping SimulatorEventQueue.Judge) async throws(LocalAuthError) {
        var refusedBy: UInt64?
        for _ in 0..<Self.deliveryAttempts {
            let armed = try state.withLock { (state) throws(LocalAuthError) -> SensorSession? in
                guard state.connected else { throw disconnected }
                if let armed = state.armed, armed.id != refusedBy { return armed }
                try queue.enqueue(modality, judge)
                return nil
            }
            guard let armed else { return }
            if await armed.deliver(judge(armed)) { return }
            refusedBy = armed.id
        }
        // Sessions kept changing under us: leave the input for the next one.
        try queue.enqueue(modality, judge)
    }

    /// Queues the input for the next evaluation and returns true when none is armed, at once;
    /// false, and nothing queued, when one is (``present(_:)`` delivers it).
    func queueUnlessArmed(_ judge: @escaping SimulatorEventQueue.Judge) throws(LocalAuthError) -> Bool {
        try state.withLock { (state) throws(LocalAuthError) -> Bool in
            guard state.connected else { throw disconnected }
            guard state.armed == nil else { return false }
            try queue.enqueue(modality, judge)
            return true
        }
    }

    private var disconnected: LocalAuthError {
        LocalAuthError(.notSupported, "The \(modality.rawValue) sensor is disconnected; connect it first (localauth sim connect \(modality.rawValue)).")
    }

    /// Bounds how often one input follows a sensor that is re-armed while it is being delivered.
    private static let deliveryAttempts = 8

    /// Disconnecting stops the armed evaluation's listening; reconnecting makes the sensor available again.
    func setConnected(_ connected: Bool) async {
        let armed = state.withLock { state -> SensorSession? in
            state.connected = connected
            guard !connected else { return nil }
            defer { state.armed = nil }
            return state.armed
        }
        if let armed { _ = await armed.deliver(.disconnected) }
    }
}
