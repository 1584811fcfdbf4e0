// SPDX-License-Identifier: Apache-2.0
import LocalAuthTestSupport
import Testing

/// The shipped unit lets the daemon reach the TPM and nothing more: `/dev/tpmrm0` bound into its
/// private `/dev` (when the machine has one) and allowed by the device policy, the rest as confined.
@Suite struct SealingUnitTests {
    @Test func theUnitBindsAndAllowsTheTPMResourceManagerOnly() throws {
        let unit = try SandboxEmulation.localauthd()
        #expect(unit.isOn("PrivateDevices"), "still a private /dev")
        #expect(unit.value("DevicePolicy") == "closed")
        #expect(unit.directives.filter { $0.key == "DeviceAllow" }.map(\.value) == ["/dev/tpmrm0 rw"])
        #expect(unit.boundDevices.map(\.path) == ["/dev/tpmrm0"])
        #expect(unit.boundDevices.map(\.optional) == [true], "a machine without a TPM still starts the daemon")
        #expect(!unit.capabilities("CapabilityBoundingSet").contains("mknod"))
    }

    @Test func theLauncherBindsTheTPMIntoThePrivateDevWhenItExists() throws {
        let unit = try SandboxEmulation.localauthd()
        let launcher = try unit.launcher(daemon: "/usr/libexec/localauthd", arguments: [], stateDirectory: "/var/lib/localauthd",
                                         scratch: "/run/scratch", environment: [:], bootID: "0", unitName: "localauthd.service")
        let script = try #require(launcher.firstIndex(of: "-c").map { launcher[$0 + 1] })
        let bind = try #require(script.split(separator: "\n").first { $0.contains("/dev/tpmrm0") })
        #expect(bind == "if [ -e '/dev/tpmrm0' ]; then touch '/run/scratch/dev/tpmrm0' && mount --bind '/dev/tpmrm0' '/run/scratch/dev/tpmrm0'; fi")
        let move = try #require(script.range(of: "mount --move /run/scratch/dev /dev"))
        #expect(script.range(of: "/dev/tpmrm0")!.lowerBound < move.lowerBound, "bound before the private /dev replaces /dev")
    }

    @Test func bindPathsOtherThanDeviceNodesAreNotEmulated() throws {
        for value in ["/etc", "-/var/lib/other", "/dev/tpmrm0:/dev/tpm0", "/dev/../etc/shadow"] {
            #expect(throws: SandboxEmulation.UnknownDirectives.self, "\(value)") {
                try SandboxEmulation(unit: "[Service]\nPrivateDevices=yes\nBindPaths=\(value)\n")
            }
        }
        let required = try SandboxEmulation(unit: "[Service]\nPrivateDevices=yes\nBindPaths=/dev/tpmrm0\n")
        #expect(required.boundDevices.map(\.optional) == [false])
    }
}
