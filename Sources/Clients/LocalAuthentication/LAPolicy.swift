// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// What an evaluation must establish, with Apple's names and raw values.
///
/// Declared once, in LocalAuthAPI, for the daemon and every client; this public typealias (not an
/// `@_exported import`, which would hand apps the whole contract module) makes `import LocalAuthentication`
/// alone give it, as on Apple platforms.
public typealias LAPolicy = LocalAuthAPI.LAPolicy
