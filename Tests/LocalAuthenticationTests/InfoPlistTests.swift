// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthTestSupport
import Testing

/// NSFaceIDUsageDescription from the app's Info.plist reaches localauthd as FaceUsageDescription:
/// with face consent on, face is offered to an app (allowed by the user) only when it has one.
/// The SecureNotes example is copied to its own directory for each layout (each copy is its own app).
@Suite("Info.plist usage description", .timeLimit(.minutes(2)))
struct InfoPlistTests {
    static let usage = ["NSFaceIDUsageDescription": "Face ID unlocks your notes."]

    @Test func faceIsOfferedOnlyWithAUsageDescriptionFromEachInfoPlistLayout() async throws {
        try await withDaemon(configuration: "face_consent = true\n") { _, bus in
            let admin = try await Client(bus)
            try await admin.setUp(faces: ["primary"])  // face only: policy 1 depends on face being offered
            let copies = [
                ("beside the executable", try RightsExampleTool.copy(infoPlist: Self.usage)),
                ("in Resources", try RightsExampleTool.copy(infoPlist: Self.usage, plistPath: "Resources/Info.plist")),
                ("iOS bundle", try RightsExampleTool.copy(to: "Notes.app/SecureNotesExample", infoPlist: Self.usage, plistPath: "Notes.app/Info.plist")),
                ("macOS bundle", try RightsExampleTool.copy(to: "Notes.app/Contents/MacOS/SecureNotesExample", infoPlist: Self.usage,
                                                            plistPath: "Notes.app/Contents/Info.plist")),
                ("none", try RightsExampleTool.copy()),
                ("empty", try RightsExampleTool.copy(infoPlist: ["NSFaceIDUsageDescription": ""])),
            ]
            defer { for (_, copy) in copies { try? FileManager.default.removeItem(atPath: copy.directory) } }
            for (layout, copy) in copies {
                // The user allows each copy (each is its own app) to use face.
                let app = URL(fileURLWithPath: copy.executable).resolvingSymlinksInPath().path
                _ = try await admin.manager("SetFaceConsent", [.string(app), .bool(true), .string("4711-secret")])
                let (_, output) = try await runTool(copy.executable, ["face"], environment: ["LOCALAUTH_BUS_ADDRESS": bus.address], timeout: .seconds(30))
                if layout == "none" || layout == "empty" {
                    #expect(output.contains("biometry unavailable [-6]") && output.contains("gave no FaceUsageDescription"), "\(layout): \(output)")
                } else {
                    #expect(output.contains("biometry available: faceID"), "\(layout): \(output)")
                }
            }
        }
    }
}
