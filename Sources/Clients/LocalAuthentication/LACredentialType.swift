// SPDX-License-Identifier: Apache-2.0
/// The kinds of credential `LAContext.setCredential(_:type:)` accepts, with Apple's raw values.
public enum LACredentialType: Int, Sendable, Hashable, CaseIterable {
    /// Here: the user's localauthd passcode, offered to `deviceOwnerAuthentication` evaluations.
    case applicationPassword = 0
    /// A smart card PIN. Not supported: `setCredential` refuses it.
    case smartCardPIN = -3
}
