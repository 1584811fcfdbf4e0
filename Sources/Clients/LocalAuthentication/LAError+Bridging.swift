// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Lets `as?`, `as!` and `catch … as LAError` turn an `NSError` of the domain
/// `com.apple.LocalAuthentication` into an `LAError`, as Apple's overlay does.
///
/// On Linux the runtime's dynamic cast from a class instance to a struct consults only the struct's
/// `_ObjectiveCBridgeable` conformance (with `NSError` as the bridged class);
/// swift-corelibs-foundation's `_BridgedStoredNSError` and `_ObjectiveCBridgeableError` are never
/// asked. An `NSError` of another domain, or with a code `LAError.Code` does not have, does not cast.
extension LAError: _ObjectiveCBridgeable {
    public func _bridgeToObjectiveC() -> NSError {
        NSError(domain: LAErrorDomain, code: errorCode, userInfo: errorUserInfo)
    }

    public static func _forceBridgeFromObjectiveC(_ source: NSError, result: inout LAError?) {
        guard _conditionallyBridgeFromObjectiveC(source, result: &result) else {
            fatalError("An NSError of domain \(source.domain) and code \(source.code) is not an LAError.")
        }
    }

    public static func _conditionallyBridgeFromObjectiveC(_ source: NSError, result: inout LAError?) -> Bool {
        guard source.domain == LAErrorDomain, let code = Code(rawValue: source.code) else {
            result = nil
            return false
        }
        result = LAError(code, message: source.userInfo[NSLocalizedDescriptionKey] as? String)
        return true
    }

    public static func _unconditionallyBridgeFromObjectiveC(_ source: NSError?) -> LAError {
        var result: LAError?
        if let source { _forceBridgeFromObjectiveC(source, result: &result) }
        return result ?? LAError(.systemCancel, message: nil)
    }
}
