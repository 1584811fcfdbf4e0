// SPDX-License-Identifier: Apache-2.0
@testable import LocalAuthCore
import Synchronization
import Testing

@Suite struct UserTableTests {
    static let record = UserRecord(profile: UserProfile(), ledger: UserLedger())

    @Test func aRecordIsLoadedOnceAndUpdatesSayWhetherItChanged() {
        var users = UserTable()
        let notLoaded = users.update(7) { _ in 1 }
        #expect(notLoaded == nil, "a user not loaded is not changed")
        users.load(Self.record, for: 7)
        var other = Self.record
        other.profileDamaged = true
        users.load(other, for: 7)
        #expect(users[7]?.profileDamaged == false, "loading again keeps the record")

        let unchanged = users.update(7) { _ in 42 }
        #expect(unchanged?.value == 42 && unchanged?.changed == nil)
        let changed = users.update(7) { $0.ledgerUnsaved = true }
        #expect(changed?.changed?.ledgerUnsaved == true)
        #expect(users[7]?.ledgerUnsaved == true)
    }

    @Test func aDomainStateIsCachedForALoadedUserUntilItsProfileChanges() {
        var users = UserTable()
        users.cacheDomainState([1], of: 7)
        #expect(users.domainState(of: 7) == nil, "not for a user that is not loaded")
        users.load(Self.record, for: 7)
        users.cacheDomainState([1], of: 7)
        _ = users.update(7) { $0.ledgerUnsaved = true }
        #expect(users.domainState(of: 7) == [1], "a ledger change keeps it")
        _ = users.update(7) { $0.profile.requireAttention.toggle() }
        #expect(users.domainState(of: 7) == nil, "a profile change drops it")
    }

    @Test func faceDecisionChangesAreCountedOverTheLastMinute() {
        var users = UserTable()
        var consents = FaceConsents()
        consents.apps["/usr/bin/notes"] = true
        #expect(users.consents(of: 7) == nil)
        var count = users.consentChanges(of: 7, at: 0)
        #expect(count == 0)
        users.recordConsentChange(consents, of: 7, at: 10)
        users.recordConsentChange(consents, of: 7, at: 30)
        #expect(users.consents(of: 7) == consents)
        count = users.consentChanges(of: 7, at: 69)
        #expect(count == 2)
        count = users.consentChanges(of: 7, at: 70)
        #expect(count == 1, "a change 60 s old is forgotten")
        count = users.consentChanges(of: 8, at: 70)
        #expect(count == 0, "counted per user")
        users.recordConsentChange(consents, of: 7, at: 95)
        count = users.consentChanges(of: 7, at: 95)
        #expect(count == 1, "the change at 30 is out of the window at 95")
    }

    final class Order: Sendable {
        let resumed = Mutex<[Int]>([])
    }

    @Test func oneChangePerUserHoldsTheSaveTurnAndTheOthersGetItInOrder() {
        var users = UserTable()
        let order = Order()
        var taken = users.takeSaveTurn(of: 7)
        #expect(taken)
        taken = users.takeSaveTurn(of: 8)
        #expect(taken, "another user's turn is its own")
        taken = users.takeSaveTurn(of: 7)
        #expect(!taken)
        for n in 1...2 { users.waitForSaveTurn(of: 7) { order.resumed.withLock { $0.append(n) } } }
        #expect(users.waitingForSaveTurn(of: 7) == 2)
        users.passSaveTurn(of: 7)?()
        #expect(order.resumed.withLock { $0 } == [1])
        taken = users.takeSaveTurn(of: 7)
        #expect(!taken, "the resumed change holds the turn")
        users.passSaveTurn(of: 7)?()
        #expect(order.resumed.withLock { $0 } == [1, 2])
        let next = users.passSaveTurn(of: 7)
        #expect(next == nil)
        taken = users.takeSaveTurn(of: 7)
        #expect(taken, "nobody holds it any more")
    }

    @Test func passcodeRemovalsAreCountedWhileTheyRun() {
        var users = UserTable()
        #expect(!users.isRemovingPasscode(7))
        users.beginPasscodeRemoval(of: 7)
        users.beginPasscodeRemoval(of: 7)
        users.endPasscodeRemoval(of: 7)
        #expect(users.isRemovingPasscode(7))
        users.endPasscodeRemoval(of: 7)
        #expect(!users.isRemovingPasscode(7))
        users.endPasscodeRemoval(of: 7)
        #expect(!users.isRemovingPasscode(7), "an unmatched end changes nothing")
    }
}
