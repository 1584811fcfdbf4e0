// SPDX-License-Identifier: Apache-2.0
/// As on Apple platforms, `import LocalAuthentication` makes Foundation's types (`NSError`, `Data`,
/// `Date`) visible: iOS code that declares `var error: NSError?` with only this import builds unchanged.
@_exported import Foundation
