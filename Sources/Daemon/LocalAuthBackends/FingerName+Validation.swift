// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore

extension FingerName {
    /// Reads a finger name from an untrusted label; anything else is an invalid argument.
    public init(validating name: String) throws(LocalAuthError) {
        guard let finger = FingerName(rawValue: name) else {
            throw LocalAuthError(.invalidArgument, "Unknown finger \"\(DisplayText.escaped(name, limit: 64))\"; use one of: \(Self.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        self = finger
    }
}
