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
    func present(_ judge: @escaping SimulatorEventQueue.Judge) async throws(LocalAuthError) {
        let armed = try state.withLock { (state) throws(LocalAuthError) -> SensorSession? in
            guard state.connected else {
                throw LocalAuthError(.notSupported, "The \(modality.rawValue) sensor is disconnected; connect it first (localauth sim connect \(modality.rawValue)).")
            }
            return state.armed
        }
        if let armed, await armed.deliver(judge(armed)) { return }
        try queue.enqueue(modality, judge)
    }

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
