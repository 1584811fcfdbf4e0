// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The Core Foundation names that Security's C signatures use, which swift-corelibs-foundation
/// does not export: each is the Foundation class Core Foundation bridges it to toll-free on Apple
/// platforms, so `kSecAttrAccessibleWhenUnlocked as CFString`, `var error: Unmanaged<CFError>?`
/// and `error!.takeRetainedValue() as Error` build and behave as there.
public typealias CFString = NSString
/// Core Foundation's error; toll-free bridged to `NSError` on Apple platforms.
public typealias CFError = NSError
/// Any Core Foundation object.
public typealias CFTypeRef = AnyObject
/// Core Foundation's option flags type.
public typealias CFOptionFlags = UInt
/// Apple's `OSStatus`: 0 is success, Security's errors are negative.
public typealias OSStatus = Int32

/// Core Foundation's allocator. Security's functions take one and ignore it here, as nearly every
/// caller passes `kCFAllocatorDefault` or nil.
public final class CFAllocator: Sendable {
    private init() {}
}

/// The default allocator: nil, as passing nil means the default on Apple platforms too.
public let kCFAllocatorDefault: CFAllocator? = nil
