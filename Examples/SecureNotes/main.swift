// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthentication
import Security

// The Linux driver of the example, for the tests:
//   save ID SECRET   saves SECRET behind biometry or the passcode
//   load ID          authorizes and prints the secret; exit 3 with "not found" when there is none for this app
//   face             whether biometry could be evaluated now (Face ID needs NSFaceIDUsageDescription)
//   demo ID          save, seal, open and sign a note, confirm a payment, remove; exit 0 when all succeed
let arguments = Array(CommandLine.arguments.dropFirst())

func fail(_ error: Error) -> Never {
    let error = error as NSError
    if error.domain == NSOSStatusErrorDomain, error.code == Int(errSecItemNotFound) {
        print("not found: \(error.localizedDescription)")
        exit(3)
    }
    print("failed [\(error.domain) \(error.code)]: \(error.localizedDescription)")
    exit(1)
}

switch (arguments.first, arguments.count) {
case ("save"?, 3):
    do {
        try await SecureNotesVault(identifier: arguments[1]).enroll(token: Data(arguments[2].utf8))
        print("saved")
    } catch { fail(error) }
case ("load"?, 2):
    do {
        let token = try await SecureNotesVault(identifier: arguments[1]).token(reason: "show your token")
        print("token: \(String(decoding: token, as: UTF8.self))")
    } catch { fail(error) }
case ("face"?, 1):
    let context = LAContext()
    var error: NSError?
    if context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error) {
        print("biometry available: \(context.biometryType == .faceID ? "faceID" : "touchID")")
    } else {
        print("biometry unavailable [\(error?.code ?? 0)]: \(error?.localizedDescription ?? "")")
    }
case ("demo"?, 2):
    let vault = SecureNotesVault(identifier: arguments[1])
    do {
        try await vault.enroll(token: Data("api-token-42".utf8))
        print("biometry usable: \(vault.biometryUsable)")
        let sealed = try await vault.seal("buy milk")
        let opened = try await vault.open(sealed, reason: "read your note")
        print("note: \(opened.note), signature \(opened.signature.count) bytes")
        let confirmed = await withCheckedContinuation { continuation in
            vault.confirmPayment(reason: "pay 10 EUR") { success, _ in continuation.resume(returning: success) }
        }
        print("payment confirmed: \(confirmed)")
        try await vault.remove()
        print("removed")
        exit(confirmed ? 0 : 1)
    } catch { fail(error) }
default:
    print("usage: SecureNotesExample save ID SECRET | load ID | face | demo ID")
    exit(64)
}
