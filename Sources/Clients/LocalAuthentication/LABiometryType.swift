// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// The biometric hardware an `LAContext` would use, with Apple's raw values.
///
/// Declared once, in LocalAuthAPI, for the daemon and every client; this public typealias (not an
/// `@_exported import`, which would hand apps the whole contract module) makes `import LocalAuthentication`
/// alone give it, as on Apple platforms.
public typealias LABiometryType = LocalAuthAPI.LABiometryType
