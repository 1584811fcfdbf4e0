// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI

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

    required convenience init(_ term: RequirementTerm) {
        self.init(expression: term.rawValue)
    }

    /// The device owner: biometry, or the passcode.
    public class var `default`: LAAuthenticationRequirement { Self(.default) }

    /// Any enrolled biometry. Authorizations fail when no biometry is available or enrolled.
    public class var biometry: LAAuthenticationRequirement { Self(.biometry) }

    /// Biometry with the enrollments of when the right was saved: adding or removing a finger or
    /// face makes the right unusable (`errSecItemNotFound`).
    public class var biometryCurrentSet: LAAuthenticationRequirement { Self(.biometryCurrentSet) }

    /// Biometry, or the fallback when biometry fails, is unavailable or the user prefers it.
    public class func biometry(fallback: LABiometryFallbackRequirement) -> Self {
        Self(expression: RequirementConnective.or.join([.biometry, fallback.term]))
    }

    /// Whether the expression has a `biometry-current-set` term.
    var needsCurrentSet: Bool { RequirementTerm.terms(of: expression).contains(.biometryCurrentSet) }

    /// Whether an authorization may ask for the passcode.
    var acceptsPasscode: Bool { RequirementTerm.terms(of: expression).contains(where: \.acceptsPasscode) }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? LAAuthenticationRequirement)?.expression == expression
    }

    public override var hash: Int { expression.hashValue }

    public override var description: String { "LAAuthenticationRequirement(\(expression))" }
}
