// SPDX-License-Identifier: Apache-2.0
@testable import LocalAuthCore
import Synchronization
import Testing

@Suite struct SensorBoardTests {
    let t0 = BootTime(boot: "b", seconds: 100)

    func session(_ board: inout SensorBoard, user: UInt32 = 1) -> SensorSession {
        SensorSession(id: board.issueSessionID(), user: user, enrolledLabels: [], requireAttention: false, deliver: { _ in false })
    }

    @Test func aSensorIsArmedOnceForWhatItsArbiterChoseAndOldSessionsNeverMatch() {
        var board = SensorBoard()
        let a = ContextID(1), b = ContextID(2)
        #expect(board.apply([.claim(a, user: 1, standing: .unknown)], on: .fingerprint, at: t0, turnLength: 0) == [.arm(a)])
        #expect(board.isClaimed(.fingerprint, by: a) && !board.isClaimed(.face, by: a))
        #expect(board.hasClaims(.fingerprint) && !board.hasClaims(.face))
        let first = session(&board)
        board.arm(first, for: a, on: .fingerprint)
        #expect(board.armed(.fingerprint)?.context == a)
        #expect(board.armed(.fingerprint, session: first.id)?.context == a)
        #expect(board.listening(a) == [.fingerprint])

        // A better standing preempts: the arbiter disarms a, arms b.
        let actions = board.apply([.claim(b, user: 2, standing: .foreground)], on: .fingerprint, at: t0, turnLength: 0)
        #expect(actions == [.disarm(a), .arm(b)])
        #expect(board.disarm(.fingerprint)?.session.id == first.id)
        #expect(board.disarm(.fingerprint) == nil)
        let second = session(&board, user: 2)
        #expect(second.id > first.id, "ids are issued once, increasing")
        board.arm(second, for: b, on: .fingerprint)
        #expect(board.armed(.fingerprint, session: first.id) == nil, "an input for the old session does not reach the new one")
        #expect(board.listening(a).isEmpty && board.listening(b) == [.fingerprint])
    }

    @Test func theNextTurnDeadlineIsTheEarliestOfTheContestedSensors() {
        var board = SensorBoard()
        #expect(board.nextTurnDeadline(length: 5) == nil)
        _ = board.apply([.claim(ContextID(1), user: 1, standing: .unknown), .claim(ContextID(2), user: 2, standing: .unknown)],
                        on: .face, at: t0, turnLength: 5)
        _ = board.apply([.claim(ContextID(3), user: 1, standing: .unknown), .claim(ContextID(4), user: 2, standing: .unknown)],
                        on: .fingerprint, at: t0.advanced(by: -2), turnLength: 5)
        #expect(board.nextTurnDeadline(length: 5) == t0.advanced(by: 3))
        #expect(board.nextTurnDeadline(length: 0) == nil, "unlimited turns end at no time")
    }

    final class Resumed: Sendable {
        let order = Mutex<[Int]>([])
    }

    @Test func attemptsWaitOnlyWhileOneIsSavedAndAreHandedBackInOrder() {
        var board = SensorBoard()
        let resumed = Resumed()
        #expect(!board.isSaving)
        board.beginSaving(ContextID(7), on: .fingerprint)
        #expect(board.isSaving)
        #expect(board.saving(.fingerprint) == ContextID(7) && board.saving(.face) == nil)
        #expect(board.isSaving(ContextID(7)) && !board.isSaving(ContextID(8)))
        for n in 1...3 { board.wait(on: .fingerprint) { resumed.order.withLock { $0.append(n) } } }
        #expect(board.endSaving(on: .face).isEmpty, "another sensor's waiters are its own")
        let waiters = board.endSaving(on: .fingerprint)
        #expect(!board.isSaving && !board.isSaving(ContextID(7)))
        for resume in waiters { resume() }
        #expect(resumed.order.withLock { $0 } == [1, 2, 3])
        #expect(board.endSaving(on: .fingerprint).isEmpty, "handed back once")
    }
}
