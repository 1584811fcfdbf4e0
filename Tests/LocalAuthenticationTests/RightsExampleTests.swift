// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthTestSupport
import Testing

/// The iOS-style SecureNotes example, built unchanged against LocalAuthentication and Security,
/// run against a private daemon; and run from another path, as another application.
@Suite("SecureNotes example", .timeLimit(.minutes(2)))
struct RightsExampleTests {
    @Test func theExampleSealsOpensSignsAndConfirmsAPayment() async throws {
        try await withDaemon(configuration: RightsTests.configuration) { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: [RightsTests.finger])
            for _ in 1...2 { try await admin.simulator("Touch", [.string(RightsTests.finger)]) }
            let (status, output) = try await runTool(RightsExampleTool.path, ["demo", "notes"],
                                                     environment: ["LOCALAUTH_BUS_ADDRESS": bus.address], timeout: .seconds(30))
            #expect(status == 0, "\(output)")
            #expect(output.contains("biometry usable: true"))
            #expect(output.contains("note: buy milk, signature"))
            #expect(output.contains("payment confirmed: true") && output.contains("removed"))
        }
    }

    @Test func anotherApplicationsRightIsNotFoundEitherWay() async throws {
        try await withDaemon(configuration: RightsTests.configuration) { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(fingers: [RightsTests.finger])
            let environment = ["LOCALAUTH_BUS_ADDRESS": bus.address]
            let other = try RightsExampleTool.copy()  // another executable path: another application
            defer { try? FileManager.default.removeItem(atPath: other.directory) }

            let saved = try await runTool(RightsExampleTool.path, ["save", "token", "from-the-first-app"], environment: environment, timeout: .seconds(30))
            #expect(saved.status == 0, "\(saved.output)")
            let foreign = try await runTool(other.executable, ["load", "token"], environment: environment, timeout: .seconds(30))
            #expect(foreign.status == 3 && foreign.output.contains("not found"), "\(foreign.output)")

            try await admin.simulator("Touch", [.string(RightsTests.finger)])
            let own = try await runTool(RightsExampleTool.path, ["load", "token"], environment: environment, timeout: .seconds(30))
            #expect(own.status == 0 && own.output.contains("token: from-the-first-app"), "\(own.output)")
        }
    }
}

/// The built SecureNotesExample, and copies of it elsewhere.
enum RightsExampleTool {
    static var path: String {
        URL(fileURLWithPath: DaemonUnderTest.binary).deletingLastPathComponent().appendingPathComponent("SecureNotesExample").path
    }

    /// A copy of the example in a new directory (`relativePath` inside it), with `infoPlist` written
    /// to `plistPath` (relative to the directory) when given.
    static func copy(to relativePath: String = "SecureNotesExample", infoPlist: [String: String]? = nil, plistPath: String = "Info.plist")
        throws -> (directory: String, executable: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("secure-notes-\(UUID().uuidString)")
        let executable = directory.appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(at: executable.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path, toPath: executable.path)
        if let infoPlist {
            let data = try PropertyListSerialization.data(fromPropertyList: infoPlist, format: .xml, options: 0)
            let file = directory.appendingPathComponent(plistPath)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: file)
        }
        return (directory.path, executable.path)
    }
}
