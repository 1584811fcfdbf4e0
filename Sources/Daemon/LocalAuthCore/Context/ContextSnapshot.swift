// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// The observable properties of a context at one moment.
public struct ContextSnapshot: Sendable, Hashable {
    public var id: ContextID
    public var owner: ClientID
    public var user: UInt32
    public var state: ContextState
    public var options: ContextOptions
    public var biometryType: LABiometryType
    /// Empty until a biometric policy check or biometric match succeeded.
    public var evaluatedPolicyDomainState: [UInt8]
}
