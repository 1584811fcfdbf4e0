// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
@_spi(Testing) import LocalAuthentication
import LocalAuthTestSupport
import Security
import Testing

/// iOS-style rights code in Swift 5 mode: completion handlers that capture a mutable,
/// non-Sendable class, a method reference as a handler, and a semaphore. That it builds is half
/// the test; the daemon's answers are the other half.
@Suite("rights completion handlers in Swift 5 mode", .timeLimit(.minutes(1)))
struct RightsCompletionTests {
    @Test func theCompletionFormsOfRightsBuildAndRun() async throws {
        try await withDaemon(configuration: "key_protection = wrapping-key\n") { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: ["right-index-finger"])
            for _ in 1...2 { try await admin.simulator("Touch", [.string("right-index-finger")]) }
            let keeper = TokenKeeper(busAddress: bus.address)
            let token = await Task.detached { keeper.storeAndReadBlocking(Data("token-1".utf8)) }.value
            #expect(token == Data("token-1".utf8))

            keeper.confirm()
            #expect(try await keeper.confirmations.next(within: .seconds(30)))
            keeper.forget()
            #expect(try await keeper.removals.next(within: .seconds(30)) == nil)
        }
    }
}

/// As apps write it: mutable, not Sendable, handlers without annotations.
final class TokenKeeper {
    let busAddress: String
    var right: LAPersistedRight?
    var token: Data?
    var lastError: Error?
    let confirmations = Inbox<Bool>()
    let removals = Inbox<Int?>()

    init(busAddress: String) {
        self.busAddress = busAddress
    }

    /// Saves, authorizes and loads with completion handlers, blocking on a semaphore between them.
    func storeAndReadBlocking(_ secret: Data) -> Data? {
        let store = LARightStore(busAddress: busAddress)
        let done = DispatchSemaphore(value: 0)
        store.saveRight(LARight(requirement: .biometry(fallback: .devicePasscode), busAddress: busAddress), identifier: "token",
                        secret: secret) { right, error in
            self.right = right
            self.lastError = error
            done.signal()
        }
        done.wait()
        guard let right = right else { return nil }
        right.authorize(localizedReason: "read the token") { error in
            self.lastError = error
            done.signal()
        }
        done.wait()
        right.secret.loadData { data, error in
            self.token = data
            self.lastError = error
            done.signal()
        }
        done.wait()
        return token
    }

    /// evaluateAccessControl with an unannotated reply that captures self.
    func confirm() {
        var error: Unmanaged<CFError>?
        guard let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                           .biometryAny, &error) else { return }
        LAContext(busAddress: busAddress).evaluateAccessControl(access, operation: .useItem, localizedReason: "confirm") { success, error in
            self.lastError = error
            self.confirmations.put(success)
        }
    }

    /// A method reference as the completion handler.
    func forget() {
        LARightStore(busAddress: busAddress).removeRight(forIdentifier: "token", completion: handleRemoval)
    }

    private func handleRemoval(_ error: Error?) {
        lastError = error
        removals.put((error as NSError?)?.code)
    }
}
