// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
@testable import LocalAuthCore
import Testing

/// The one-byte set of sensors agrees with `Set<BiometricModality>` on every pair of sets.
@Suite("BiometricModalitySet", .timeLimit(.minutes(1)))
struct BiometricModalitySetTests {
    /// Every subset of the modalities, as both kinds of set.
    static let subsets: [(BiometricModalitySet, Set<BiometricModality>)] = (0..<(1 << BiometricModality.allCases.count)).map { mask in
        let members = BiometricModality.allCases.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element)
        return (BiometricModalitySet(members), Set(members))
    }

    @Test func setOperationsAgreeWithSet() {
        for (a, setA) in Self.subsets {
            #expect(Set(a) == setA)
            #expect(a.count == setA.count)
            #expect(a.isEmpty == setA.isEmpty)
            for modality in BiometricModality.allCases { #expect(a.contains(modality) == setA.contains(modality)) }
            for (b, setB) in Self.subsets {
                #expect(Set(a.union(b)) == setA.union(setB))
                #expect(Set(a.intersection(b)) == setA.intersection(setB))
                #expect(Set(a.symmetricDifference(b)) == setA.symmetricDifference(setB))
                #expect(Set(a.subtracting(b)) == setA.subtracting(setB))
                #expect(a.isSubset(of: b) == setA.isSubset(of: setB))
                #expect((a == b) == (setA == setB))
                var changed = a
                changed.subtract(b)
                #expect(Set(changed) == setA.subtracting(setB))
            }
        }
    }

    @Test func insertAndRemoveReportWhatChanged() {
        var set: BiometricModalitySet = []
        #expect(set.insert(.face).inserted)
        #expect(!set.insert(.face).inserted)
        #expect(set.update(with: .fingerprint) == nil)
        #expect(set.update(with: .fingerprint) == .fingerprint)
        #expect(set == [.face, .fingerprint])
        #expect(set.remove(.face) == .face)
        #expect(set.remove(.face) == nil)
        #expect(set == [.fingerprint])
    }

    @Test func iteratesEachMemberOnceInCaseOrder() {
        for (set, _) in Self.subsets {
            #expect(Array(set) == BiometricModality.allCases.filter(set.contains))
        }
        #expect(BiometricModalitySet([.face, .fingerprint]).description == "[fingerprint, face]")
    }

    @Test func equalSetsHashAlike() {
        #expect(Set([BiometricModalitySet([.face, .fingerprint]), [.fingerprint, .face], [.face]]).count == 2)
    }
}
