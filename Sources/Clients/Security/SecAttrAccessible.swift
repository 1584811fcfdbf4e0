// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The item is reachable only while the device is unlocked, only when a passcode is set, and never
/// leaves this device (Apple's value `akpu`). localauthd's rights all behave so: they exist only
/// while the user has a passcode and are sealed to this machine.
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
/// Reachable while the device is unlocked; never leaves this device (`aku`).
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
/// Reachable while the device is unlocked (`ak`).
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
/// Reachable after the first unlock since boot; never leaves this device (`cku`).
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// Reachable after the first unlock since boot (`ck`).
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
/// Deprecated by Apple since iOS 12: always reachable (`dk`).
@available(*, deprecated, message: "Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlock")
nonisolated(unsafe) public let kSecAttrAccessibleAlways: CFString = "dk"
/// Deprecated by Apple since iOS 12: always reachable, never leaves this device (`dku`).
@available(*, deprecated, message: "Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly")
nonisolated(unsafe) public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = "dku"

/// The raw values of the accessibility constants above, which `SecAccessControlCreateWithFlags` accepts.
let secAttrAccessibleValues: Set<String> = ["akpu", "aku", "ak", "cku", "ck", "dk", "dku"]
