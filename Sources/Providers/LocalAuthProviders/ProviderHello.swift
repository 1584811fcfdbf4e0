// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import LocalAuthDBus

/// A provider's answer to `Hello`, checked: what it is and what it can do.
struct ProviderHello: Sendable, Hashable {
    let version: UInt32
    let modality: BiometricModality
    let providerVersion: String
    let description: String
    let available: Bool
    let identify: Bool
    /// Captures one enrollment needs; 0: the provider cannot enroll.
    let enrollStages: UInt32
    let attention: Bool
    /// The retry reasons it may report; empty: it did not say, any is accepted.
    let retryReasons: [RetryReason]

    /// Why a provider's handshake was refused; the provider stays refused until it restarts.
    struct Refusal: Error {
        let message: String
    }

    /// Reads `Hello`'s reply `(u, s, a{sv})`. A version other than the host's, another modality
    /// than the descriptor's, or a capability of the wrong type is refused.
    init(_ reply: BusWire.HelloReply.Value, expecting modality: BiometricModality) throws(Refusal) {
        let (version, name, capabilities) = reply
        // Minor versions are compatible upwards only from the provider's side: it was told the
        // host's version and must answer with at most that, and at least 1.
        guard version >= 1, version <= ProviderProtocol.hostVersion else {
            throw Refusal(message: "it speaks provider protocol version \(version); this localauthd speaks version \(ProviderProtocol.hostVersion) (org.localauth.Provider1). Install a provider built for this localauthd")
        }
        guard let spoken = BiometricModality(rawValue: name), spoken == modality else {
            throw Refusal(message: "Hello says modality \"\(name)\" but its descriptor says \(modality.rawValue)")
        }
        func value<T>(_ key: ProviderCapabilityKey, _ read: (DBusValue) -> T?, default fallback: T) throws(Refusal) -> T {
            guard let raw = capabilities[key.rawValue] else { return fallback }
            guard let typed = read(raw) else { throw Refusal(message: "capability \(key.rawValue) has type \(raw.signature), not \(key.signature)") }
            return typed
        }
        self.version = version
        self.modality = spoken
        providerVersion = String(try value(.providerVersion, \.string, default: "").prefix(64))
        description = String(try value(.description, \.string, default: "").prefix(200))
        available = try value(.available, \.bool, default: false)
        identify = try value(.identify, \.bool, default: false)
        enrollStages = try value(.enrollStages, \.uint32, default: 0)
        attention = try value(.attention, \.bool, default: false)
        let reasons = try value(.retryReasons, \.strings, default: [])
        var known: [RetryReason] = []
        for reason in reasons {
            guard let retry = RetryReason(rawValue: reason) else {
                throw Refusal(message: "capability RetryReasons names \"\(reason.prefix(64))\", which is not a retry reason (\(RetryReason.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            known.append(retry)
        }
        retryReasons = known
    }
}
