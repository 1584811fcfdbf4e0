// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// A set of sensors (``BiometricModality``), held in one byte.
///
/// The engine builds, compares and intersects these sets many times an evaluation (usable,
/// wanted, held back, listening); a `Set` allocated storage and hashed for each of them.
/// Iterates in ``BiometricModality/allCases`` order.
public struct BiometricModalitySet: SetAlgebra, Sequence, Hashable, Sendable, CustomStringConvertible {
    public typealias Element = BiometricModality
    public typealias ArrayLiteralElement = BiometricModality

    private var bits: UInt8

    public init() { bits = 0 }

    private init(bits: UInt8) { self.bits = bits }

    private static func bit(_ modality: BiometricModality) -> UInt8 {
        switch modality {
        case .face: 1
        case .fingerprint: 2
        }
    }

    public var isEmpty: Bool { bits == 0 }
    public var count: Int { bits.nonzeroBitCount }

    public func contains(_ member: BiometricModality) -> Bool { bits & Self.bit(member) != 0 }

    public func union(_ other: Self) -> Self { Self(bits: bits | other.bits) }
    public func intersection(_ other: Self) -> Self { Self(bits: bits & other.bits) }
    public func symmetricDifference(_ other: Self) -> Self { Self(bits: bits ^ other.bits) }
    public func subtracting(_ other: Self) -> Self { Self(bits: bits & ~other.bits) }

    @discardableResult
    public mutating func insert(_ newMember: BiometricModality) -> (inserted: Bool, memberAfterInsert: BiometricModality) {
        let inserted = !contains(newMember)
        bits |= Self.bit(newMember)
        return (inserted, newMember)
    }

    @discardableResult
    public mutating func remove(_ member: BiometricModality) -> BiometricModality? {
        guard contains(member) else { return nil }
        bits &= ~Self.bit(member)
        return member
    }

    @discardableResult
    public mutating func update(with newMember: BiometricModality) -> BiometricModality? {
        insert(newMember).inserted ? nil : newMember
    }

    public mutating func formUnion(_ other: Self) { bits |= other.bits }
    public mutating func formIntersection(_ other: Self) { bits &= other.bits }
    public mutating func formSymmetricDifference(_ other: Self) { bits ^= other.bits }
    public mutating func subtract(_ other: Self) { bits &= ~other.bits }

    public func makeIterator() -> Iterator { Iterator(set: self) }

    /// The members in ``BiometricModality/allCases`` order.
    public struct Iterator: IteratorProtocol {
        fileprivate let set: BiometricModalitySet
        private var index = 0

        fileprivate init(set: BiometricModalitySet) { self.set = set }

        public mutating func next() -> BiometricModality? {
            let all = BiometricModality.allCases
            while index < all.count {
                defer { index += 1 }
                if set.contains(all[index]) { return all[index] }
            }
            return nil
        }
    }

    public var underestimatedCount: Int { count }

    /// `[face, fingerprint]`.
    public var description: String { "[" + map(\.rawValue).joined(separator: ", ") + "]" }
}
