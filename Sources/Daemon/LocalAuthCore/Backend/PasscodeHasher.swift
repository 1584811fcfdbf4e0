// SPDX-License-Identifier: Apache-2.0
/// Turns passcodes into stored hashes and checks them. Slow by design (Argon2id), so both
/// calls are async and must not run on the caller's executor.
public protocol PasscodeHasher: Sendable {
    /// A self-describing hash string to store in place of the passcode.
    func hash(_ passcode: Passcode) async throws(LocalAuthError) -> String
    /// Whether `passcode` matches `storedHash`, compared in constant time.
    func verify(_ passcode: Passcode, against storedHash: String) async -> Bool
}
