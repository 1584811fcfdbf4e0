// SPDX-License-Identifier: Apache-2.0

/// Apple's operations an access control is evaluated for (`LAContext.evaluateAccessControl`),
/// with Apple's raw values. Every operation evaluates the access control's constraints alike here;
/// the operation names what the app is about to do (localauthd holds no keychain items).
public enum LAAccessControlOperation: Int, Sendable, Hashable, CaseIterable {
    /// Creating a keychain item.
    case createItem = 0
    /// Reading or using a keychain item.
    case useItem = 1
    /// Creating a key.
    case createKey = 2
    /// Signing with a key.
    case useKeySign = 3
    /// Decrypting with a key.
    case useKeyDecrypt = 4
    /// A key exchange with a key.
    case useKeyKeyExchange = 5
}
