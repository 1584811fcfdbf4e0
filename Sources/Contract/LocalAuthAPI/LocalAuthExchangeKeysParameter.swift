// SPDX-License-Identifier: Apache-2.0
/// The keys of `Context.ExchangeKeys`'s parameters (`a{sv}`), each with its value's signature;
/// both only for the X9.63 KDF algorithms.
public enum LocalAuthExchangeKeysParameter: String, CaseIterable, Sendable {
    /// The number of bytes the KDF derives (1…1024); required with a KDF algorithm.
    case requestedSize = "RequestedSize"
    /// The KDF's shared info; empty when absent.
    case sharedInfo = "SharedInfo"

    /// The D-Bus signature of the value under this key.
    public var signature: String {
        switch self {
        case .requestedSize: "u"
        case .sharedInfo: "ay"
        }
    }
}
