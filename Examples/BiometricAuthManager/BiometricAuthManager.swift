// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthentication

/// The usual iOS biometric-login helper, minus UIKit: nothing here is Linux-specific.
final class BiometricAuthManager: Sendable {
    enum BiometricType {
        case none, touchID, faceID, opticID
    }

    enum AuthenticationResult: Sendable {
        case success
        case failure(code: LAError.Code?, message: String)
    }

    /// The kind of biometry this device offers, for the login button's icon.
    func biometricType() -> BiometricType {
        let context = LAContext()
        _ = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
        switch context.biometryType {
        case .none: return .none
        case .touchID: return .touchID
        case .faceID: return .faceID
        case .opticID: return .opticID
        @unknown default: return .none
        }
    }

    /// Whether the user can authenticate at all (biometry or passcode), and if not, why.
    func canAuthenticate() -> (available: Bool, message: String?) {
        let context = LAContext()
        var error: NSError?
        guard context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error) else {
            return (false, Self.errorMessage(for: error as? LAError))
        }
        return (true, nil)
    }

    /// Callback style, as most existing iOS code is written.
    func authenticate(reason: String, completion: @escaping @Sendable (AuthenticationResult) -> Void) {
        let context = LAContext()
        context.localizedFallbackTitle = "Use Passcode"
        context.localizedCancelTitle = "Not Now"
        var error: NSError?
        guard context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error) else {
            let error = error as? LAError
            completion(.failure(code: error?.code, message: Self.errorMessage(for: error)))
            return
        }
        context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: reason) { success, error in
            if success {
                completion(.success)
            } else if let error = error as? LAError {
                completion(.failure(code: error.code, message: Self.message(for: error.code)))
            } else {
                completion(.failure(code: nil, message: error?.localizedDescription ?? "Authentication failed."))
            }
        }
    }

    /// async/await style.
    func authenticate(reason: String) async -> AuthenticationResult {
        let context = LAContext()
        do {
            let success = try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: reason)
            return success ? .success : .failure(code: nil, message: "Authentication failed.")
        } catch let error as LAError {
            return .failure(code: error.code, message: Self.message(for: error.code))
        } catch {
            return .failure(code: nil, message: error.localizedDescription)
        }
    }

    /// The seeds' helper: a message for an `LAError`, a generic one for anything else.
    static func errorMessage(for error: LAError?) -> String {
        guard let error else { return "Authentication could not be completed." }
        return message(for: error.code)
    }

    /// A message for the user for every `LAError.Code`.
    static func message(for code: LAError.Code) -> String {
        switch code {
        case .authenticationFailed: return "We couldn't verify your identity. Please try again."
        case .userCancel: return "You cancelled authentication."
        case .userFallback: return "Please enter your password instead."
        case .systemCancel: return "Authentication was interrupted by the system. Please try again."
        case .passcodeNotSet: return "Set a device passcode to use this feature."
        case .biometryNotAvailable: return "Biometric authentication is not available on this device."
        case .biometryNotEnrolled: return "Set up Touch ID or Face ID to use this feature."
        case .biometryLockout: return "Biometry is locked. Enter your passcode to unlock it."
        case .appCancel: return "Authentication was cancelled by the app."
        case .invalidContext: return "Authentication expired. Please try again."
        case .companionNotAvailable: return "No paired device is available to authenticate."
        case .biometryNotPaired: return "Pair a biometric accessory to use this feature."
        case .biometryDisconnected: return "Reconnect your biometric accessory."
        case .invalidDimensions: return "Authentication could not be shown."
        case .notInteractive: return "Authentication needs your interaction."
        default: return "Authentication failed (\(code.rawValue))."
        }
    }
}
