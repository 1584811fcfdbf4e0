// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore

/// What the `Simulator` bus object drives on a simulated sensor. A registry row that makes a
/// simulator hands one out (``BackendRegistry/Product/simulator``), so the bus object needs no
/// concrete simulator type.
public protocol SimulatorControl: Sendable {
    var modality: BiometricModality { get }
    /// Presents one input; an input of another sensor type is invalidArgument.
    func simulate(_ input: SimulatedInput) async throws(LocalAuthError)
    /// Queues `input` for the next evaluation and returns true when no evaluation listens to the
    /// sensor now, without suspending; false, and nothing done, when one does (present it with
    /// ``simulate(_:)``). Throws as ``simulate(_:)`` does for a bad or foreign input.
    func queueUnlessArmed(_ input: SimulatedInput) throws(LocalAuthError) -> Bool
    /// Disconnecting stops the armed evaluation's listening; reconnecting makes the sensor available again.
    func setConnected(_ connected: Bool) async
}

/// One input a simulated sensor can be given.
public enum SimulatedInput: Sendable, Hashable {
    /// A finger on the fingerprint sensor.
    case touch(finger: String)
    /// A fingerprint read that cannot be judged (`too-short`, …).
    case fingerprintRetry(reason: String)
    /// A face in front of the camera.
    case face(appearance: String, attentive: Bool)
}

extension FingerprintSimulator: SimulatorControl {
    public func simulate(_ input: SimulatedInput) async throws(LocalAuthError) {
        switch input {
        case .touch(let finger): try await touch(finger)
        case .fingerprintRetry(let reason): try await retry(reason)
        case .face: throw Self.foreignInput
        }
    }

    public func queueUnlessArmed(_ input: SimulatedInput) throws(LocalAuthError) -> Bool {
        switch input {
        case .touch(let finger): try sensor.queueUnlessArmed(try touchJudge(finger))
        case .fingerprintRetry(let reason): try sensor.queueUnlessArmed(try retryJudge(reason))
        case .face: throw Self.foreignInput
        }
    }

    private static let foreignInput = LocalAuthError(.invalidArgument, "The fingerprint simulator takes touches and retries, not faces.")
}

extension FaceSimulator: SimulatorControl {
    public func simulate(_ input: SimulatedInput) async throws(LocalAuthError) {
        switch input {
        case .face(let appearance, let attentive): try await present(appearance, attentive: attentive)
        case .touch, .fingerprintRetry: throw Self.foreignInput
        }
    }

    public func queueUnlessArmed(_ input: SimulatedInput) throws(LocalAuthError) -> Bool {
        switch input {
        case .face(let appearance, let attentive): try sensor.queueUnlessArmed(try judge(appearance, attentive: attentive))
        case .touch, .fingerprintRetry: throw Self.foreignInput
        }
    }

    private static let foreignInput = LocalAuthError(.invalidArgument, "The face simulator takes faces, not fingerprints.")
}
