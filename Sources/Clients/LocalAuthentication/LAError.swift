// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI

/// Apple's error domain for LocalAuthentication errors.
public let LAErrorDomain = "com.apple.LocalAuthentication"

/// Apple's `kLAErrorDomain` (a C macro there): the same string as `LAErrorDomain`.
public let kLAErrorDomain = LAErrorDomain

/// An error of `LAContext`, shaped as Apple's: a struct with a `code`, bridged to `NSError` with the
/// domain `com.apple.LocalAuthentication`.
///
/// Match it as on Apple platforms: `catch let error as LAError { switch error.code { … } }` or
/// `catch LAError.userCancel`. Every `NSError` of the domain with a known code casts to it with
/// `as? LAError`, as on Apple platforms: the one `canEvaluatePolicy(_:error:)` hands out, one made with
/// `NSError(domain: LAErrorDomain, code:)`, and an `LAError` that went through `NSError`. (On Linux
/// the Swift runtime casts a class instance to a struct through the struct's `_ObjectiveCBridgeable`
/// conformance, which swift-corelibs-foundation's `_ObjectiveCBridgeableError` alone does not give.)
public struct LAError: Error, CustomNSError, Hashable, Sendable {
    /// Apple's codes, plus `passcodeLockout`, this project's extension.
    ///
    /// Declared once, in LocalAuthAPI, for the daemon and every client; this public typealias (not an
    /// `@_exported import`) makes `import LocalAuthentication` alone give `LAError.Code`, as on Apple platforms.
    public typealias Code = LAErrorCode

    public let code: Code
    /// What happened and what the user can do, from localauthd when it answered.
    private let message: String

    /// Apple's initializer; a `NSLocalizedDescriptionKey` string in `userInfo` becomes the description.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.init(code, message: userInfo[NSLocalizedDescriptionKey] as? String)
    }

    /// An `LAError` from an `NSError` of the domain `com.apple.LocalAuthentication`; other domains and
    /// unknown codes become `systemCancel`.
    public init(_nsError error: NSError) {
        let code = error.domain == LAErrorDomain ? Code(rawValue: error.code) : nil
        self.init(code ?? .systemCancel, message: error.localizedDescription)
    }

    init(_ code: Code, message: String?) {
        self.code = code
        self.message = message ?? Self.defaultMessage(code)
    }

    public static var errorDomain: String { LAErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    public var userInfo: [String: Any] { errorUserInfo }
    public var localizedDescription: String { message }

    public static var authenticationFailed: Code { .authenticationFailed }
    public static var userCancel: Code { .userCancel }
    public static var userFallback: Code { .userFallback }
    public static var systemCancel: Code { .systemCancel }
    public static var passcodeNotSet: Code { .passcodeNotSet }
    public static var biometryNotAvailable: Code { .biometryNotAvailable }
    public static var biometryNotEnrolled: Code { .biometryNotEnrolled }
    public static var biometryLockout: Code { .biometryLockout }
    public static var appCancel: Code { .appCancel }
    public static var invalidContext: Code { .invalidContext }
    public static var companionNotAvailable: Code { .companionNotAvailable }
    public static var biometryNotPaired: Code { .biometryNotPaired }
    public static var biometryDisconnected: Code { .biometryDisconnected }
    public static var invalidDimensions: Code { .invalidDimensions }
    public static var notInteractive: Code { .notInteractive }
    public static var passcodeLockout: Code { .passcodeLockout }
    @available(*, deprecated, renamed: "biometryNotAvailable")
    public static var touchIDNotAvailable: Code { .biometryNotAvailable }
    @available(*, deprecated, renamed: "biometryNotEnrolled")
    public static var touchIDNotEnrolled: Code { .biometryNotEnrolled }
    @available(*, deprecated, renamed: "biometryLockout")
    public static var touchIDLockout: Code { .biometryLockout }
    @available(*, deprecated, renamed: "companionNotAvailable")
    public static var watchNotAvailable: Code { .companionNotAvailable }

    private static func defaultMessage(_ code: Code) -> String {
        switch code {
        case .authenticationFailed: "Authentication failed: the credentials were not recognized."
        case .userCancel: "Authentication was cancelled by the user."
        case .userFallback: "The user chose to authenticate another way."
        case .systemCancel: "Authentication was cancelled by the system."
        case .passcodeNotSet: "No passcode is set; set one with the localauth tool first."
        case .biometryNotAvailable: "No biometric sensor is available."
        case .biometryNotEnrolled: "No fingerprint or face is enrolled; enroll one first."
        case .biometryLockout: "Biometry is locked after too many failed attempts; enter the passcode to unlock it."
        case .appCancel: "The application cancelled authentication."
        case .invalidContext: "This LAContext was invalidated; create a new one."
        case .companionNotAvailable: "No companion device is available."
        case .biometryNotPaired: "No biometric accessory is paired."
        case .biometryDisconnected: "The biometric accessory is disconnected."
        case .invalidDimensions: "Invalid dimensions."
        case .notInteractive: "Authentication needs the user, but interaction is not allowed."
        case .passcodeLockout: "The passcode is locked after too many wrong attempts."
        }
    }
}

extension LAErrorCode {
    /// Lets `catch LAError.userCancel` match an error with this code.
    public static func ~= (pattern: LAErrorCode, error: any Error) -> Bool {
        (error as? LAError)?.code == pattern
    }
}
