// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// The emulation of `systemd/localauthd.service`'s sandbox knows every directive of the unit, and
/// the daemon it starts is confined as the unit says.
@Suite(.timeLimit(.minutes(3)))
struct SandboxEmulationTests {
    @Test func everyDirectiveOfTheShippedUnitIsEmulatedOrListedWithAReason() throws {
        let emulation = try SandboxEmulation.localauthd()
        #expect(!emulation.directives.isEmpty)
        for (key, _) in emulation.directives {
            switch SandboxEmulation.treatment(of: key) {
            case .emulated: break
            case .enforcedOnlyBySystemd(let reason), .serviceManagement(let reason): #expect(!reason.isEmpty, "\(key)")
            case nil: Issue.record("\(key) is not known")
            }
        }
        #expect(emulation.value("ProtectProc") == "invisible" && emulation.value("ProcSubset") == "pid", "the unit hides /proc")
    }

    @Test func aDirectiveTheEmulationDoesNotKnowFailsTheUnit() throws {
        let unit = try String(contentsOf: SystemPolicy.repositoryRoot.appendingPathComponent("systemd/localauthd.service"), encoding: .utf8)
        for added in ["PrivateUsers=yes", "ProtectSystem=full", "BindReadOnlyPaths=/etc", "CapabilityBoundingSet=~CAP_SYS_ADMIN",
                      "Environment=HOME=%h"] {
            let changed = unit.replacingOccurrences(of: "[Service]\n", with: "[Service]\n\(added)\n")
            #expect(throws: SandboxEmulation.UnknownDirectives.self, "\(added)") { try SandboxEmulation(unit: changed) }
        }
        // Outside [Service], and in comments, nothing counts.
        _ = try SandboxEmulation(unit: unit.replacingOccurrences(of: "[Service]\n", with: "# PrivateUsers=yes\n[Service]\n")
                                 + "\n[Install]\nWantedBy=multi-user.target\n")
    }

    @Test func specifiersAndCapabilitiesReadAsSystemdReadsThem() throws {
        let emulation = try SandboxEmulation(unit: """
            [Service]
            Environment=LOCALAUTHD_BOOT_ID=%b "GREETING=a b" UNIT=%n NAME=%N PERCENT=100%%
            CapabilityBoundingSet=CAP_SYS_ADMIN
            CapabilityBoundingSet=
            CapabilityBoundingSet=CAP_SYS_PTRACE
            AmbientCapabilities=CAP_SYS_PTRACE
            """)
        let environment = try emulation.environment(bootID: "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", unitName: "localauthd.service")
        #expect(environment == [
            "LOCALAUTHD_BOOT_ID": "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "GREETING": "a b", "UNIT": "localauthd.service",
            "NAME": "localauthd", "PERCENT": "100%",
        ])
        #expect(emulation.capabilities("CapabilityBoundingSet") == ["sys_ptrace"], "an empty assignment resets the list")
        #expect(emulation.capabilities("AmbientCapabilities") == ["sys_ptrace"])
    }

    /// The daemon started by the emulation, seen from outside through `/proc/PID`: the bounding
    /// set, no_new_privs, umask, environment, its own `/proc` (hidepid=invisible, subset=pid), `/tmp`
    /// and network namespace.
    @Test(.enabled(if: ConfinedDaemon.unsupportedReason == nil, "\(ConfinedDaemon.unsupportedReason ?? "")"))
    func theConfinedDaemonIsConfinedAsTheUnitSays() async throws {
        let daemon = try ConfinedDaemon(configuration: ["backends": "passcode"])
        let watcher = try await daemon.bus.connect()
        defer { watcher.close() }
        try await daemon.start(watcher: watcher)
        let pid = try #require(daemon.pid)
        let emulation = daemon.emulation
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) -> String? {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }.map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
        }
        let bits: [String: Int] = ["sys_ptrace": 19, "sys_admin": 21, "net_admin": 12, "dac_read_search": 2, "kill": 5]
        let expected = emulation.capabilities("CapabilityBoundingSet").reduce(UInt64(0)) { $0 | (1 << UInt64(bits[$1] ?? 63)) }
        #expect(field("CapBnd").flatMap { UInt64($0, radix: 16) } == expected, "\(status)")
        #expect(field("CapEff").flatMap { UInt64($0, radix: 16) } == expected, "root keeps only the bounding set")
        #expect(field("NoNewPrivs") == (emulation.isOn("NoNewPrivileges") ? "1" : "0"))
        if let umask = emulation.value("UMask") { #expect(field("Umask").flatMap { UInt32($0, radix: 8) } == UInt32(umask, radix: 8)) }

        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ")).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        for (key, value) in try emulation.environment(bootID: ConfinedDaemon.bootID, unitName: ConfinedDaemon.unitName) {
            #expect(environ.contains("\(key)=\(value)"), "\(key)")
        }
        #expect(!environ.contains { $0.hasPrefix("HOME=") }, "systemd's clean environment")

        let mounts = try String(contentsOfFile: "/proc/\(pid)/mountinfo", encoding: .utf8).split(separator: "\n")
        let proc = try #require(mounts.last { $0.split(separator: " ")[4] == "/proc" }, "the topmost /proc")
        #expect(proc.contains("hidepid=invisible") && proc.contains("subset=pid"), "\(proc)")
        let root = mounts.last { $0.split(separator: " ")[4] == "/" }
        #expect(root?.split(separator: " ")[5].hasPrefix("ro") == true, "ProtectSystem=strict: \(root ?? "")")
        let state = mounts.last { $0.split(separator: " ")[4] == daemon.stateDirectory }
        #expect(state?.split(separator: " ")[5].hasPrefix("rw") == true, "the state directory stays writable")

        let marker = "/tmp/localauthd-sandbox-\(UUID().uuidString)"
        FileManager.default.createFile(atPath: marker, contents: Data())
        defer { try? FileManager.default.removeItem(atPath: marker) }
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(pid)/root\(marker)"), "PrivateTmp: the host's /tmp is not the daemon's")
        let network = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/ns/net")
        #expect(network != (try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")), "PrivateNetwork")
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(pid)/root/proc/sys/kernel/random/boot_id"), "ProcSubset=pid hides /proc/sys")
    }
}
