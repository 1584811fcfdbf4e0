// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The keys of `exchangeKeys`' parameters dictionary, with Apple's raw values.
public struct SecKeyKeyExchangeParameter: RawRepresentable, Hashable, Sendable {
    /// Kept as a Swift string (an `NSString` is not `Sendable` on Linux).
    private let name: String
    public var rawValue: CFString { name as CFString }
    public init(rawValue: CFString) { name = rawValue as String }
    /// The number of bytes the KDF derives (an `Int`).
    public static let requestedSize = SecKeyKeyExchangeParameter(rawValue: "requestedSize")
    /// The KDF's shared info (`Data`).
    public static let sharedInfo = SecKeyKeyExchangeParameter(rawValue: "sharedInfo")
}
