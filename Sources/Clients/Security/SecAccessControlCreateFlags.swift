// SPDX-License-Identifier: Apache-2.0

/// Apple's access-control flags, with Apple's raw values: the constraints an item or key's use
/// needs (the user's presence, biometry, the passcode, a companion) and how they combine.
///
/// On Linux they reach localauthd through `LAContext.evaluateAccessControl(_:operation:localizedReason:)`:
/// `userPresence` is a `default` requirement (biometry or the passcode), `biometryAny` `biometry`,
/// `biometryCurrentSet` `biometry-current-set`, `devicePasscode` and `applicationPassword`
/// `passcode` (the application password is the localauthd passcode, as in `LAContext.setCredential`);
/// several constraints join with `or` when `.or` is set, else with `and`. `companion` cannot be met
/// here (localauthd pairs no companions): alone or under `.and` it fails, under `.or` it is skipped.
public struct SecAccessControlCreateFlags: OptionSet, Sendable, Hashable {
    public let rawValue: CFOptionFlags
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

    /// Biometry if available, else the passcode.
    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    /// Any enrolled biometry, also after enrollments changed.
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// The biometry enrolled when the item was made: adding or removing an enrollment invalidates it.
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// The device passcode.
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    /// A paired companion device (watch); never available here.
    public static let companion = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// Apple's older name of `companion`.
    @available(*, deprecated, renamed: "companion")
    public static let watch = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// At least one of the constraints.
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    /// All of the constraints.
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    /// The item is a private key whose use (signing, decrypting, key exchange) the constraints protect.
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    /// An application password the app supplies; here the localauthd passcode (a `passcode` term).
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)

    @available(*, deprecated, renamed: "biometryAny")
    public static let touchIDAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    @available(*, deprecated, renamed: "biometryCurrentSet")
    public static let touchIDCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)

    /// Every flag Apple defines.
    static let known: SecAccessControlCreateFlags = [
        .userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode, .companion, .or, .and, .privateKeyUsage, .applicationPassword,
    ]
}
