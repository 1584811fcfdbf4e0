// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Apple's requirement that protects a right (`LARight(requirement:)`): which authentication
/// `authorize(localizedReason:)` asks for.
///
/// Each is sent to localauthd as a requirement expression:
/// - `default`: `default` — the device owner, by biometry or the passcode (as
///   `deviceOwnerAuthentication`).
/// - `biometry`: `biometry` — any enrolled biometry, no passcode (fails when none is enrolled).
/// - `biometryCurrentSet`: `biometry-current-set` — biometry, and only while the enrollments are
///   those of when the right was saved (a plain `LARight`: of its first authorization).
/// - `biometry(fallback: .devicePasscode)` and `biometry(fallback: .default)`: `biometry or passcode`
///   — one evaluation offering biometry and the passcode (Apple's default fallback is the passcode).
public class LAAuthenticationRequirement: NSObject, @unchecked Sendable {
    /// The expression sent to localauthd.
    let expression: String

    required init(expression: String) {
        self.expression = expression
    }

    /// The device owner: biometry, or the passcode.
    public class var `default`: LAAuthenticationRequirement { Self(expression: "default") }

    /// Any enrolled biometry. Authorizations fail when no biometry is available or enrolled.
    public class var biometry: LAAuthenticationRequirement { Self(expression: "biometry") }

    /// Biometry with the enrollments of when the right was saved: adding or removing a finger or
    /// face makes the right unusable (`errSecItemNotFound`).
    public class var biometryCurrentSet: LAAuthenticationRequirement { Self(expression: "biometry-current-set") }

    /// Biometry, or the fallback when biometry fails, is unavailable or the user prefers it.
    public class func biometry(fallback: LABiometryFallbackRequirement) -> Self {
        Self(expression: "biometry or \(fallback.term)")
    }

    /// Whether the expression has a `biometry-current-set` term.
    var needsCurrentSet: Bool { expression.contains("biometry-current-set") }

    /// Whether an authorization may ask for the passcode.
    var acceptsPasscode: Bool { expression.contains("default") || expression.contains("passcode") }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? LAAuthenticationRequirement)?.expression == expression
    }

    public override var hash: Int { expression.hashValue }

    public override var description: String { "LAAuthenticationRequirement(\(expression))" }
}
