// SPDX-License-Identifier: Apache-2.0
import CSodium
import LocalAuthCore

/// `evaluatedPolicyDomainState` as a keyed BLAKE2b-256 (libsodium `crypto_generichash`) of the
/// user's enrollments, keyed with the per-installation secret.
public struct KeyedDomainStateHasher: DomainStateHasher {
    public static let keyLength = 32
    public static let outputLength = 32
    private let key: [UInt8]

    public init(installationSecret key: [UInt8]) throws(LocalAuthError) {
        try Sodium.initialize()
        guard key.count == Self.keyLength else {
            throw LocalAuthError(.invalidArgument, "The installation secret must be \(Self.keyLength) bytes; it is \(key.count).")
        }
        self.key = key
    }

    public func domainState(user: UInt32, profile: UserProfile) -> [UInt8] {
        let input = Self.canonicalInput(user: user, profile: profile)
        var output = [UInt8](repeating: 0, count: Self.outputLength)
        _ = crypto_generichash(&output, output.count, input, UInt64(input.count), key, key.count)
        return output
    }
}
