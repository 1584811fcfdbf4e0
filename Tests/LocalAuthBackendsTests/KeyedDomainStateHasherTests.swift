// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthBackends
import LocalAuthCore
import Testing

@Suite("Keyed domain state", .timeLimit(.minutes(1)))
struct KeyedDomainStateHasherTests {
    static let key = (0..<32).map(UInt8.init)
    static let otherKey = (0..<32).map { UInt8(255 - $0) }

    static var oneFinger: UserProfile {
        var profile = UserProfile()
        profile.enroll(.fingerprint, label: "right-index-finger")
        return profile
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    @Test func thirtyTwoBytesAndDeterministic() throws {
        let hasher = try KeyedDomainStateHasher(installationSecret: Self.key)
        let state = hasher.domainState(user: 1000, profile: Self.oneFinger)
        #expect(state.count == 32)
        #expect(state == hasher.domainState(user: 1000, profile: Self.oneFinger))
        #expect(state == (try KeyedDomainStateHasher(installationSecret: Self.key)).domainState(user: 1000, profile: Self.oneFinger))
        #expect(hasher.domainState(user: 1000, profile: UserProfile()).count == 32)
    }

    /// Known answers from Python's `hashlib.blake2b(canonical, digest_size=32, key=bytes(range(32)))`.
    @Test func keyedBlake2b256OfTheCanonicalInput() throws {
        let hasher = try KeyedDomainStateHasher(installationSecret: Self.key)
        #expect(Self.hex(hasher.domainState(user: 1000, profile: Self.oneFinger)) == "f80423a0fbf9fcb375890b40c8f214796ece7599e2c5b56a10afe2e120e1417a")
        #expect(Self.hex(hasher.domainState(user: 1000, profile: UserProfile())) == "75f5af2b6427c768443014880bdd816621de3eeafff362aaf294011d282b8177")
    }

    /// The canonical input lists enrollments by modality: that order must stay the names' order,
    /// whatever `BiometricModality` compares by.
    @Test func modalitiesSortByName() {
        let cases = BiometricModality.allCases
        #expect(cases.sorted() == cases.sorted { $0.rawValue < $1.rawValue })
        #expect(Set(cases).count == cases.count)
    }

    @Test func differentKeysGiveDifferentStates() throws {
        let a = try KeyedDomainStateHasher(installationSecret: Self.key)
        let b = try KeyedDomainStateHasher(installationSecret: Self.otherKey)
        #expect(a.domainState(user: 1000, profile: Self.oneFinger) != b.domainState(user: 1000, profile: Self.oneFinger))
    }

    @Test func differentUsersGiveDifferentStates() throws {
        let hasher = try KeyedDomainStateHasher(installationSecret: Self.key)
        #expect(hasher.domainState(user: 1000, profile: Self.oneFinger) != hasher.domainState(user: 1001, profile: Self.oneFinger))
    }

    @Test func enrollUnenrollAndReEnrollEachChangeTheState() throws {
        let hasher = try KeyedDomainStateHasher(installationSecret: Self.key)
        var profile = UserProfile()
        var states = [hasher.domainState(user: 1000, profile: profile)]
        profile.enroll(.fingerprint, label: "right-index-finger")
        states.append(hasher.domainState(user: 1000, profile: profile))
        profile.unenroll(.fingerprint, labels: ["right-index-finger"])
        states.append(hasher.domainState(user: 1000, profile: profile))  // same set as at first
        profile.enroll(.fingerprint, label: "right-index-finger")
        states.append(hasher.domainState(user: 1000, profile: profile))  // same set as the second
        profile.enroll(.fingerprint, label: "right-index-finger")  // re-enroll of the same finger
        states.append(hasher.domainState(user: 1000, profile: profile))
        #expect(Set(states).count == states.count, "every change gives a new state")
    }

    @Test func enrollmentsAndSettingsOtherThanEnrollmentsAreHandledAsDocumented() throws {
        let hasher = try KeyedDomainStateHasher(installationSecret: Self.key)
        var face = UserProfile()
        face.enroll(.face, label: "right-index-finger")  // same label, other modality
        #expect(hasher.domainState(user: 1000, profile: face) != hasher.domainState(user: 1000, profile: Self.oneFinger))
        var withPasscode = Self.oneFinger
        withPasscode.passcodeHash = "$argon2id$whatever"
        withPasscode.requireAttention = false
        #expect(hasher.domainState(user: 1000, profile: withPasscode) == hasher.domainState(user: 1000, profile: Self.oneFinger),
                "only enrollments count")
    }

    @Test(arguments: [0, 16, 31, 33, 64])
    func aKeyOfTheWrongLengthIsAnInvalidArgument(_ length: Int) {
        #expect(errorKind { _ = try KeyedDomainStateHasher(installationSecret: [UInt8](repeating: 7, count: length)) } == .invalidArgument)
    }
}
