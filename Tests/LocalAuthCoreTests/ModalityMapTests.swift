// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
@testable import LocalAuthCore
import Testing

@Suite struct ModalityMapTests {
    @Test func valuesAreKeptPerModalityAndRemoved() {
        var map = ModalityMap<Int>()
        #expect(map.isEmpty)
        map[.face] = 1
        #expect(map[.face] == 1)
        #expect(map[.fingerprint] == nil)
        #expect(!map.isEmpty)
        #expect(map.removeValue(forKey: .face) == 1)
        #expect(map.removeValue(forKey: .face) == nil)
        #expect(map.isEmpty)
    }

    @Test func theDefaultSubscriptStoresTheDefaultAndMutatesInPlace() {
        var map = ModalityMap<[Int]>()
        map[.fingerprint, default: []].append(1)
        map[.fingerprint, default: [9]].append(2)
        #expect(map[.fingerprint] == [1, 2])
        #expect(map[.face, default: [7]] == [7])
        #expect(map[.face] == nil, "reading with a default stores nothing")
    }

    @Test func iterationFollowsAllCasesAndSkipsEmptySlots() {
        var map = ModalityMap<String>()
        #expect(Array(map.values).isEmpty)
        map[.face] = "f"
        #expect(map.map(\.key) == [.face])
        map[.fingerprint] = "p"
        #expect(map.map(\.key) == BiometricModality.allCases)
        #expect(Array(map.values) == ["p", "f"])
    }

    @Test func aDictionaryLiteralFillsTheSlotsAndEqualMapsCompareEqual() {
        let limits: ModalityMap<Int> = [.face: 2, .fingerprint: 3]
        #expect(limits[.face] == 2 && limits[.fingerprint] == 3)
        var built = ModalityMap<Int>()
        built[.fingerprint] = 3
        #expect(built != limits)
        built[.face] = 2
        #expect(built == limits)
        #expect(Set([built, limits]).count == 1)
        #expect(([:] as ModalityMap<Int>).isEmpty)
    }
}
