// SPDX-License-Identifier: Apache-2.0
/// Provider protocol v1: what this daemon speaks within it. Its names are in
/// ``LocalAuthBusNames``, its two interfaces in ``LocalAuthInterface/provider`` and
/// ``LocalAuthInterface/providerHost``.
public enum ProviderProtocol {
    /// The protocol minor version this daemon speaks within Provider1.
    public static let hostVersion: UInt32 = 1
}
