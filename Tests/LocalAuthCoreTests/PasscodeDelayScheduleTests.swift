// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import Testing

@Suite("Passcode delays (Apple's schedule)", .timeLimit(.minutes(1)))
struct PasscodeDelayScheduleTests {
    let schedule = Configuration().passcodeSchedule

    @Test("delay after the Nth consecutive failure", arguments: [
        (1, PasscodeDelaySchedule.Consequence.none), (2, .none), (3, .none), (4, .none),
        (5, .delay(seconds: 60)), (6, .delay(seconds: 300)), (7, .delay(seconds: 900)), (8, .delay(seconds: 900)),
        (9, .delay(seconds: 3600)), (10, .permanentLock), (11, .permanentLock),
    ])
    func appleSchedule(failures: Int, expected: PasscodeDelaySchedule.Consequence) {
        #expect(schedule.consequence(ofFailure: failures) == expected)
    }

    @Test func lastDelayRepeatsBeyondTheList() {
        let short = PasscodeDelaySchedule(delays: [0, 5], maxFailures: 6)
        #expect(short.consequence(ofFailure: 2) == .delay(seconds: 5))
        #expect(short.consequence(ofFailure: 5) == .delay(seconds: 5))
        #expect(short.consequence(ofFailure: 6) == .permanentLock)
    }

    @Test func ledgerRefusesDuringTheDelayAndSaysWhen() {
        var ledger = UserLedger()
        func at(_ seconds: Double) -> ClockReading { ClockReading(wall: UnixTime(seconds), uptime: BootTime(boot: "b", seconds: seconds - 900)) }
        for _ in 1...5 { ledger.recordPasscodeFailure(at: at(1000), schedule: schedule) }
        #expect(ledger.passcodeRetryAfter == UnixTime(1060))
        let refusal = ledger.passcodeRefusal(at: at(1059))
        #expect(refusal?.code == .passcodeLockout)
        #expect(refusal?.retryAfter == UnixTime(1060))
        #expect(refusal?.message.contains("1 s") == true)
        #expect(ledger.passcodeRefusal(at: at(1060)) == nil)
    }

    @Test func correctPasscodeClearsEveryCounterAndLock() {
        var ledger = UserLedger()
        _ = ledger.recordBiometricFailure(maxFailures: 1)
        for _ in 1...6 { ledger.recordPasscodeFailure(at: ClockReading(wall: UnixTime(0), uptime: BootTime(boot: "b", seconds: 0)), schedule: schedule) }
        ledger.recordPasscodeSuccess()
        #expect(ledger.biometryFailures == 0 && !ledger.biometryLockedOut)
        #expect(ledger == UserLedger())
    }
}
