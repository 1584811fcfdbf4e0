// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthTestSupport
import Testing

/// Writing to a child that has gone must not end the test process, nor change what the next
/// children inherit.
@Suite struct ChildProcessTests {
    @Test func inputForAChildThatHasExitedIsDroppedAndSIGPIPEStaysDefault() async throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        let input = Pipe()
        child.standardInput = input
        let exited = Inbox<Int32>()
        try child.run()
        ChildProcess.reportExit(of: child, into: exited)
        #expect(try await ChildProcess.exitStatus(of: child, from: exited, within: .seconds(10)) == 0)
        // The read end is gone with the child: without the blocked signal this write would raise
        // SIGPIPE and end the process running the tests.
        try input.fileHandleForReading.close()
        ChildProcess.send("nobody reads this\n", to: input)
        ChildProcess.send("nor this\n", to: input)

        var disposition = sigaction()
        sigaction(SIGPIPE, nil, &disposition)
        #expect(disposition.__sigaction_handler.sa_handler == nil, "SIGPIPE is no longer SIG_DFL")
        var mask = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &mask)
        #expect(sigismember(&mask, SIGPIPE) == 0, "SIGPIPE left blocked on this thread")
        var pending = sigset_t()
        sigpending(&pending)
        #expect(sigismember(&pending, SIGPIPE) == 0, "a SIGPIPE left pending")
    }
}
