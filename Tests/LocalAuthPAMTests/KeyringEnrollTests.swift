// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// `localauth keyring enroll | status | remove`, the real binary under pam_wrapper: the password is
/// checked on a localauth-keyring service of the test's own (pam_matrix) before it is stored.
@Suite("localauth keyring", .serialized, .timeLimit(.minutes(3)))
struct KeyringEnrollTests {
    static let password = "my login password"

    /// `localauth` next to the test bundle, like `DaemonUnderTest.binary`.
    static var binary: String {
        URL(fileURLWithPath: DaemonUnderTest.binary).deletingLastPathComponent().appendingPathComponent("localauth").path
    }

    private func localauth(_ bus: PrivateBus, _ services: URL, _ arguments: [String], stdin: String = "") async throws -> (status: Int32, output: String) {
        let environment = ProcessInfo.processInfo.environment.merging([
            "LD_PRELOAD": "libpam_wrapper.so",
            "PAM_WRAPPER": "1",
            "PAM_WRAPPER_SERVICE_DIR": services.path,
        ]) { $1 }
        let tester = try PAMTester(executable: Self.binary, arguments: ["--address", bus.address] + arguments, environment: environment)
        tester.write(stdin)
        tester.closeInput()
        let result = try await tester.finish()
        return (result.status, result.output)
    }

    private func withServices(_ body: (Client, PrivateBus, URL) async throws -> Void) async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            try await client.setUp(passcode: KeyringPAMTests.passcode, fingers: [KeyringPAMTests.finger])
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyring-services-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try KeyringServices.writeKeyringService(in: directory, accepting: Self.password)
            try await body(client, bus, directory)
        }
    }

    @Test func enrollChecksBothEntriesAndThePasswordThenStores() async throws {
        try await withServices { client, bus, services in
            let differ = try await localauth(bus, services, ["keyring", "enroll", "--stdin"], stdin: "\(Self.password)\n\(Self.password)x\n")
            #expect(differ.status == 65 && differ.output.contains("The two passwords differ; nothing was stored."), "\(differ.output)")
            let wrong = try await localauth(bus, services, ["keyring", "enroll", "--stdin"], stdin: "not it\nnot it\n")
            #expect(wrong.status == 65 && wrong.output.contains("That is not the login password of root"), "\(wrong.output)")
            #expect(try await client.loginPasswordStored() == false)

            let stored = try await localauth(bus, services, ["keyring", "enroll", "--stdin"], stdin: "\(Self.password)\n\(Self.password)\n")
            #expect(stored.status == 0 && stored.output.contains("Login password stored, sealed with"), "\(stored.output)")
            #expect(!stored.output.contains(Self.password))
            #expect(try await client.loginPasswordStored() == true)
            let status = try await localauth(bus, services, ["--json", "keyring", "status"])
            #expect(status.status == 0 && status.output.contains("\"loginPasswordStored\":true"), "\(status.output)")
        }
    }

    @Test func removeTakesTheStoredPasswordAway() async throws {
        try await withServices { client, bus, services in
            let none = try await localauth(bus, services, ["keyring", "remove"])
            #expect(none.status == 65 && none.output.contains("No login password is stored."), "\(none.output)")
            try await client.storeLoginPassword(Self.password)
            let removed = try await localauth(bus, services, ["keyring", "remove"])
            #expect(removed.status == 0, "\(removed.output)")
            #expect(try await client.loginPasswordStored() == false)
            let status = try await localauth(bus, services, ["keyring", "status"])
            #expect(status.status == 0 && status.output.contains("Login password: not stored"), "\(status.output)")
        }
    }

    @Test func enrollNeedsAnEnrolledBiometry() async throws {
        try await withDaemon { _, bus in
            let client = try await Client(bus)
            try await client.setUp(passcode: KeyringPAMTests.passcode)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyring-services-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let result = try await localauth(bus, directory, ["keyring", "enroll", "--stdin"], stdin: "\(Self.password)\n\(Self.password)\n")
            #expect(result.status == 65 && result.output.contains("No finger or face is enrolled"), "\(result.output)")
        }
    }
}
