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
            let enrolled = try await observer.oldStates(until: environment) { $0.biometry?.stateHash != before }
            #expect(enrolled.first?.biometry?.stateHash == before)
            #expect(environment.state.biometry?.stateHash.count == 32)

            let other = Observer()
            environment.addObserver(other)
            environment.removeObserver(observer)
            let toldBefore = observer.changes.received.count
            _ = try await admin.manager("RemovePasscode", [.string("4711-secret")])
            let removed = try await other.oldStates(until: environment) { $0.userPassword?.isSet == false }
            #expect(removed.first?.userPassword?.isSet == true)
            _ = try await admin.manager("SetPasscode", [.string(""), .string("4711-secret")])
            let setAgain = try await other.oldStates(until: environment) { $0.userPassword?.isSet == true }
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
        let changes = Inbox<LAEnvironment.State>()
        func environment(_ environment: LAEnvironment, stateDidChangeFromOldState oldState: LAEnvironment.State) {
            changes.put(oldState)
        }

        /// The old states of the changes this observer is told of, until `environment`'s state
        /// (updated before observers are told) satisfies `done`; one change may arrive as several.
        func oldStates(until environment: LAEnvironment, _ done: (LAEnvironmentState) -> Bool) async throws -> [LAEnvironmentState] {
            var states: [LAEnvironmentState] = []
            repeat {
                states.append(try await changes.next(within: .seconds(30)))
            } while !done(environment.state)
            return states
        }
    }
}
