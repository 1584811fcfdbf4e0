// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
@_spi(Testing) import LocalAuthentication
import LocalAuthTestSupport
import Testing

/// Seed-style code in Swift 5 mode: a non-Sendable completion handler captured by `reply`, a method
/// reference as `reply`, and a local mutated in `reply` before a semaphore lets the caller read it.
/// That this file builds is half the test; the daemon's answers are the other half.
@Suite("reply closures in Swift 5 mode", .timeLimit(.minutes(1)))
struct ReplyClosureTests {
    @Test func theSeedsReplyPatternsBuildAndRun() async throws {
        try await withDaemon { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: ["right-index-finger"])
            for _ in 1...3 { try await admin.simulator("Touch", [.string("right-index-finger")]) }
            let authenticator = Authenticator(busAddress: bus.address)
            let viaSemaphore = await Task.detached { authenticator.authenticateBlocking() }.value
            #expect(viaSemaphore)

            let completion = Inbox<Bool>()
            authenticator.authenticate { success in completion.put(success) }
            #expect(try await completion.next(within: .seconds(10)))

            authenticator.authenticateWithMethodReference()
            #expect(try await authenticator.results.next(within: .seconds(10)))
        }
    }
}

/// A class as apps write them: mutable, not Sendable, callbacks without annotations.
final class Authenticator {
    let busAddress: String
    let results = Inbox<Bool>()
    var lastError: Error?

    init(busAddress: String) {
        self.busAddress = busAddress
    }

    /// The semaphore pattern: blocks the calling thread until `reply` ran.
    func authenticateBlocking() -> Bool {
        let context = LAContext(busAddress: busAddress)
        var succeeded = false
        let done = DispatchSemaphore(value: 0)
        context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "semaphore") { success, error in
            succeeded = success
            self.lastError = error
            done.signal()
        }
        done.wait()
        return succeeded
    }

    /// A plain escaping completion handler, captured by `reply`.
    func authenticate(completion: @escaping (Bool) -> Void) {
        LAContext(busAddress: busAddress).evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "completion") { success, _ in
            completion(success)
        }
    }

    func authenticateWithMethodReference() {
        LAContext(busAddress: busAddress).evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "method",
                                                         reply: handleReply)
    }

    private func handleReply(_ success: Bool, _ error: Error?) {
        lastError = error
        results.put(success)
    }
}
