// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthSystem
import Testing

/// The boot id reaches the daemon under the unit, which hides `/proc/sys` (issue 27, R7): from
/// `LOCALAUTHD_BOOT_ID=%b`, else the kernel's file, never made up (a made-up id restarted every
/// running passcode delay at each daemon start).
@Suite("The boot id survives the unit")
struct BootIDSurvivesTheUnitTests {
    static let hidden = "/nonexistent/boot_id"

    @Test func theUnitsBootIDIsTakenInTheKernelsForm() throws {
        // systemd's %b is 32 hex digits; /proc has dashes: both give the same id.
        #expect(try BootID.current(environment: "0F3C2A8B9D4E4F1A8B2C3D4E5F60718A", kernelFile: Self.hidden)
                == "0f3c2a8b-9d4e-4f1a-8b2c-3d4e5f60718a")
        #expect(try BootID.current(environment: "0f3c2a8b-9d4e-4f1a-8b2c-3d4e5f60718a", kernelFile: Self.hidden)
                == "0f3c2a8b-9d4e-4f1a-8b2c-3d4e5f60718a")
        let kernel = try String(contentsOfFile: BootID.kernelFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try BootID.current(environment: nil) == kernel)
    }

    @Test func withoutABootIDNoneIsMadeUp() {
        #expect(throws: BootID.Unavailable.self) { try BootID.current(environment: nil, kernelFile: Self.hidden) }
        for invalid in ["", "unknown-42-1700000000", "0f3c2a8b9d4e4f1a8b2c3d4e5f60718", "0f3c2a8b-9d4e-4f1a-8b2c3d4e5f60718ab", "zf3c2a8b9d4e4f1a8b2c3d4e5f60718a"] {
            #expect(throws: BootID.Unavailable.self, "\(invalid)") { try BootID.current(environment: invalid, kernelFile: BootID.kernelFile) }
        }
    }
}
