// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Apple's access-control object: an accessibility level (`kSecAttrAccessible…`) and the
/// constraints (`SecAccessControlCreateFlags`) an operation on the item needs. Made by
/// ``SecAccessControlCreateWithFlags(_:_:_:_:)``; immutable.
public final class SecAccessControl: Hashable, Sendable, CustomStringConvertible {
    /// The accessibility level's raw value (`akpu`, `aku`, …).
    public let protection: String
    /// The constraints, as given.
    public let flags: SecAccessControlCreateFlags

    init(protection: String, flags: SecAccessControlCreateFlags) {
        self.protection = protection
        self.flags = flags
    }

    public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool {
        lhs.protection == rhs.protection && lhs.flags == rhs.flags
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(protection)
        hasher.combine(flags.rawValue)
    }

    public var description: String { "SecAccessControl(\(protection), flags 0x\(String(flags.rawValue, radix: 16)))" }
}

/// Apple's `SecAccessControlCreateWithFlags`: an access control for `protection` (one of the
/// `kSecAttrAccessible…` constants) and `flags`, or nil with `error` set (domain
/// `NSOSStatusErrorDomain`, code `errSecParam`) when `protection` is not an accessibility constant,
/// `flags` has bits Apple does not define, or both `.or` and `.and`. `allocator` is ignored.
/// A returned error is +1 as on Apple platforms: take it with `takeRetainedValue()`.
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    func fail(_ message: String) -> SecAccessControl? {
        let failure = NSError(domain: NSOSStatusErrorDomain, code: Int(errSecParam), userInfo: [NSLocalizedDescriptionKey: message])
        error?.pointee = Unmanaged.passRetained(failure)
        return nil
    }
    guard let protection = (protection as? NSString).map({ $0 as String }) ?? (protection as? String),
          secAttrAccessibleValues.contains(protection)
    else {
        return fail("The protection is not one of the kSecAttrAccessible… constants.")
    }
    guard SecAccessControlCreateFlags.known.isSuperset(of: flags) else {
        return fail("The flags 0x\(String(flags.subtracting(.known).rawValue, radix: 16)) are not SecAccessControlCreateFlags.")
    }
    guard !flags.isSuperset(of: [.or, .and]) else {
        return fail("The flags have both .or and .and; give one of them.")
    }
    return SecAccessControl(protection: protection, flags: flags)
}
