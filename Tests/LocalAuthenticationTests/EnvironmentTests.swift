// SPDX-License-Identifier: Apache-2.0
import Foundation
@_spi(Testing) import LocalAuthentication
import LocalAuthTestSupport
import Synchronization
import Testing

/// LAEnvironment against the real localauthd: the state from GetUserState and Backends, and
/// observers told of changes.
@Suite("LAEnvironment against localauthd", .timeLimit(.minutes(2)))
struct EnvironmentTests {
    @Test func theStateShowsThePasscodeTheSensorAndTheEnrollments() async throws {
        try await withDaemon { _, bus in
            let admin = try await Client(bus)
            let environment = LAEnvironment(busAddress: bus.address)
            let fresh = await Task.detached { environment.state }.value
            #expect(fresh.userPassword?.isSet == false)
            let bare = try #require(fresh.biometry, "the simulators are sensors")
            #expect(!bare.isEnrolled && !bare.isUsable && bare.stateHash.isEmpty)

            try await admin.setUp(fingers: ["right-index-finger"])
            let state = await Task.detached { environment.state }.value
            #expect(state.userPassword?.isSet == true && state.userPassword?.isUsable == true)
            let biometry = try #require(state.biometry)
            #expect(biometry.biometryType == .touchID, "the enrolled sensor")
            #expect(biometry.isEnrolled && biometry.isUsable && !biometry.isLockedOut && !biometry.builtInSensorInaccessible)
            #expect(biometry.stateHash.count == 32)
            #expect(biometry.localizedName == "Touch ID")
            #expect(state.companions.isEmpty && state.allMechanisms.count == 2)

            try await admin.simulator("SetConnected", [.string("fingerprint"), .bool(false)])
            let unplugged = await Task.detached { environment.state }.value
            #expect(unplugged.biometry?.builtInSensorInaccessible == true && unplugged.biometry?.isUsable == false)
        }
    }

    @Test func anObserverIsToldOfAnEnrollmentWithTheOldState() async throws {
        try await withDaemon { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: ["right-index-finger"])
            let environment = LAEnvironment(busAddress: bus.address)
            let observer = Observer()
            environment.addObserver(observer)
            await environment.followingChanges()
            let before = try #require(environment.state.biometry?.stateHash)

            _ = try await admin.manager("Enroll", [.string("fingerprint"), .string("left-thumb"), .string("4711-secret")])
            try await observer.wait(until: environment) { $0.biometry?.stateHash != before }
            #expect(observer.changes.received.first?.biometry?.stateHash == before)
            #expect(environment.state.biometry?.stateHash.count == 32)

            let other = Observer()
            environment.addObserver(other)
            environment.removeObserver(observer)
            let toldBefore = observer.changes.received.count
            _ = try await admin.manager("RemovePasscode", [.string("4711-secret")])
            try await other.wait(until: environment) { $0.userPassword?.isSet == false }
            _ = try await admin.manager("SetPasscode", [.string(""), .string("4711-secret")])
            try await other.wait(until: environment) { $0.userPassword?.isSet == true }
            // One change more, so that SetPasscode's last is known as such (see `changes(until:)`).
            _ = try await admin.manager("RemovePasscode", [.string("4711-secret")])
            let removed = try await other.changes(until: { $0.userPassword?.isSet == false })
            #expect(removed.first?.userPassword?.isSet == true)
            let setAgain = try await other.changes(until: { $0.userPassword?.isSet == true })
            #expect(setAgain.last?.userPassword?.isSet == false)
            #expect(observer.changes.received.count == toldBefore, "a removed observer is not told")
        }
    }

    @Test func withoutADaemonThereIsNoMechanism() async {
        let state = await Task.detached { LAEnvironment(busAddress: "unix:path=/nonexistent/bus").state }.value
        #expect(state.biometry == nil && state.userPassword == nil && state.allMechanisms.isEmpty)
    }

    /// Spelt as Apple's Swift declares it (`LAEnvironment.Observer`, `LAEnvironment.State`).
    final class Observer: LAEnvironment.Observer, Sendable {
        /// The old state of each change told, in order (`received`).
        let changes = Inbox<LAEnvironment.State>()
        /// How many of `changes.received` the calls of `changes(until:)` returned.
        private let taken = Mutex(0)

        func environment(_ environment: LAEnvironment, stateDidChangeFromOldState oldState: LAEnvironment.State) {
            changes.put(oldState)
        }

        /// Waits for changes to be told, at least one, until `environment`'s state (set before
        /// its observers are told) satisfies `done`: then the next step may begin. Some changes
        /// may not be told yet (one step can be told as several).
        func wait(until environment: LAEnvironment, _ done: (LAEnvironmentState) -> Bool) async throws {
            repeat {
                _ = try await changes.next(within: .seconds(30))
            } while !done(environment.state)
        }

        /// The old states of one step's changes: those told after the previous step's, up to the
        /// first that led to a state satisfying `done`. A change is judged by the state it led
        /// to, the old state of the change told after it (the environment reads the state anew
        /// in order and tells each change from the state the one before led to), not by the
        /// environment's state when it is told, which may already be a later change's. So this
        /// waits for the change after a step's last one: the test makes one after the last step.
        func changes(until done: (LAEnvironmentState) -> Bool) async throws -> [LAEnvironmentState] {
            while true {
                let told = changes.received
                let start = taken.withLock { $0 }
                if start < told.count, let end = told[(start + 1)...].firstIndex(where: done) {
                    taken.withLock { $0 = end }
                    return Array(told[start..<end])
                }
                _ = try await changes.next(within: .seconds(30))  // the next change told (or one already read by `wait`)
            }
        }
    }
}
