// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import Synchronization
import Testing

/// ``LedgerWriter`` driven by hand: which ledger each write saves, which commits it completes,
/// and the order users' writes take.
@Suite("LedgerWriter: group commit per user, users take turns")
struct LedgerWriterTests {
    /// Scheduled drains and the writes they made; `duringWrite` runs inside the next write.
    final class Disk: Sendable {
        struct Log {
            var scheduled: [@Sendable () -> Void] = []
            var writes: [(user: UInt32, failures: Int)] = []
            var duringWrite: (@Sendable () -> Void)?
            var failWrites = false
        }
        let log = Mutex(Log())

        func runNext() {
            let next = log.withLock { $0.scheduled.isEmpty ? nil : $0.scheduled.removeFirst() }
            next?()
        }

        var writes: [String] { log.withLock { $0.writes.map { "\($0.user):\($0.failures)" } } }
    }

    func writer(_ disk: Disk) -> LedgerWriter {
        LedgerWriter(
            write: { ledger, user throws(StateStoreError) in
                let (during, fail) = disk.log.withLock { log in
                    defer { log.duringWrite = nil }
                    return (log.duringWrite, log.failWrites)
                }
                during?()
                if fail { throw StateStoreError(.io, "disk full (test)") }
                disk.log.withLock { $0.writes.append((user, ledger.biometryFailures)) }
            },
            schedule: { drain in disk.log.withLock { $0.scheduled.append(drain) } })
    }

    func ledger(failures: Int) -> UserLedger {
        var ledger = UserLedger()
        ledger.biometryFailures = failures
        return ledger
    }

    @Test func submissionsDuringAWriteShareTheNextOneAndAnotherUserGoesFirst() async {
        let disk = Disk()
        let writer = writer(disk)
        let first = writer.submit(ledger(failures: 1), user: 1000)
        let other = writer.submit(ledger(failures: 1), user: 1001)
        let later = Mutex<[LedgerCommit]>([])
        disk.log.withLock { log in
            log.duringWrite = {
                later.withLock { $0 = [writer.submit(self.ledger(failures: 2), user: 1000), writer.submit(self.ledger(failures: 3), user: 1000)] }
            }
        }
        for _ in 0..<3 { disk.runNext() }
        #expect(disk.writes == ["1000:1", "1001:1", "1000:3"], "two submissions, one write of the newest; uid 1001 was not kept waiting")
        #expect(disk.log.withLock { $0.scheduled.isEmpty })
        #expect((try? await first.outcome().get()) != nil)
        #expect((try? await other.outcome().get()) != nil)
        for commit in later.withLock({ $0 }) { #expect((try? await commit.outcome().get()) != nil) }
    }

    @Test func aFailedWriteFailsEveryCommitItContainedAndNoOther() async {
        let disk = Disk()
        let writer = writer(disk)
        disk.log.withLock { $0.failWrites = true }
        let failed = [writer.submit(ledger(failures: 1), user: 1000), writer.submit(ledger(failures: 2), user: 1000)]
        disk.runNext()
        disk.log.withLock { $0.failWrites = false }
        let next = writer.submit(ledger(failures: 3), user: 1000)
        disk.runNext()
        for commit in failed {
            guard case .failure(let error) = await commit.outcome() else { Issue.record("a failed write succeeded"); continue }
            #expect(error.kind == .io)
        }
        #expect((try? await next.outcome().get()) != nil)
        #expect(disk.writes == ["1000:3"])
    }
}
