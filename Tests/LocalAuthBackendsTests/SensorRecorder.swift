// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import Synchronization
import Testing

/// Stands in for the engine's side of a ``SensorSession``: keeps every delivered event and answers
/// `deliver` with true (the session is armed) or false (it is not, so the backend must queue the input).
final class SensorRecorder: Sendable {
    private let events = Mutex<[AttemptEvent]>([])
    private let accepting: Bool

    init(accepting: Bool = true) {
        self.accepting = accepting
    }

    var delivered: [AttemptEvent] { events.withLock { $0 } }

    func session(id: UInt64 = 1, user: UInt32 = 1000, labels: [String] = [], requireAttention: Bool = true) -> SensorSession {
        SensorSession(id: id, user: user, enrolledLabels: labels, requireAttention: requireAttention) { [self] event in
            events.withLock { $0.append(event) }
            return accepting
        }
    }
}

/// The ten fprintd finger names, spelled out here so that a change to `FingerName` is caught.
let fprintdFingerNames = [
    "left-thumb", "left-index-finger", "left-middle-finger", "left-ring-finger", "left-little-finger",
    "right-thumb", "right-index-finger", "right-middle-finger", "right-ring-finger", "right-little-finger",
]

/// The kind of `LocalAuthError` `body` throws, or nil when it does not throw (any other error is an issue).
func errorKind(_ body: () async throws -> Void) async -> LocalAuthError.Kind? {
    do {
        try await body()
        return nil
    } catch {
        return kind(of: error)
    }
}

func errorKind(_ body: () throws -> Void) -> LocalAuthError.Kind? {
    do {
        try body()
        return nil
    } catch {
        return kind(of: error)
    }
}

private func kind(of error: any Error) -> LocalAuthError.Kind? {
    guard let error = error as? LocalAuthError else {
        Issue.record("not a LocalAuthError: \(error)")
        return nil
    }
    return error.kind
}
