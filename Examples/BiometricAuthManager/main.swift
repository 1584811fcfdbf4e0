// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthentication

// Check availability, evaluate .deviceOwnerAuthentication with a reason (callback, then async),
// and map every LAError.Code to a message. Exit status 0 when both evaluations succeed.
let manager = BiometricAuthManager()

print("biometry: \(manager.biometricType())")
let availability = manager.canAuthenticate()
print("available: \(availability.available)\(availability.message.map { " (\($0))" } ?? "")")

func describe(_ result: BiometricAuthManager.AuthenticationResult) -> (ok: Bool, text: String) {
    switch result {
    case .success: return (true, "success")
    case .failure(let code, let message): return (false, "failed [\(code.map { "\($0.rawValue)" } ?? "-")]: \(message)")
    }
}

let byCallback = await withCheckedContinuation { continuation in
    manager.authenticate(reason: "unlock your notes") { continuation.resume(returning: $0) }
}
let first = describe(byCallback)
print("callback: \(first.text)")

let second = describe(await manager.authenticate(reason: "open your vault"))
print("async: \(second.text)")

exit(first.ok && second.ok ? 0 : 1)
