// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthCore
import LocalAuthSystem
import Testing

@Suite("App identity for face consent")
struct ProcessIdentityTests {
    @Test func sandboxedAppsAreNamedByTheirScopeOthersByTheirExecutable() throws {
        #expect(ProcessIdentity.sandbox(cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.gnome.Notes-12345.scope\n")
                == AppIdentity(sandbox: .flatpak, name: "org.gnome.Notes"))
        #expect(ProcessIdentity.sandbox(cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/snap.firefox.firefox-2a8c.scope\n")
                == AppIdentity(sandbox: .snap, name: "firefox"))
        #expect(ProcessIdentity.sandbox(cgroup: "0::/user.slice/user-1000.slice/session-3.scope\n") == nil)
        let own = try ProcessIdentity.app(ofProcess: UInt32(getpid())).get()
        #expect(own == AppIdentity(executable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path))
        #expect(!own.isSandboxed)
    }

    /// Flatpak apps are known by their `/.flatpak-info` too, Snap apps by their AppArmor label; both are sandboxed.
    @Test func flatpakInfoAndSnapAppArmorLabelsNameSandboxedApps() {
        let info = "[Application]\nname=org.example.Notes\nruntime=runtime/org.gnome.Platform/x86_64/46\n\n[Instance]\ninstance-id=1\n"
        #expect(ProcessIdentity.flatpakName(info: info) == "org.example.Notes")
        #expect(ProcessIdentity.flatpakName(info: "[Runtime]\nname=org.gnome.Platform\n") == nil)
        #expect(ProcessIdentity.flatpakName(info: "[Application]\nname=evil\u{1b}[2K\n") == nil)
        #expect(ProcessIdentity.snap(appArmorLabel: "snap.firefox.firefox (enforce)\n") == AppIdentity(sandbox: .snap, name: "firefox"))
        #expect(ProcessIdentity.snap(appArmorLabel: "unconfined\n") == nil)
        #expect(ProcessIdentity.snap(appArmorLabel: "/usr/bin/man (enforce)\n") == nil)
        #expect(AppIdentity(id: "flatpak:org.example.Notes").isSandboxed && AppIdentity(id: "snap:firefox").isSandboxed)
        #expect(!AppIdentity(id: "/usr/bin/notes").isSandboxed)
    }

    /// Nothing is silently "unidentified": a lookup that fails says why.
    @Test func anIdentityThatCannotBeReadSaysWhy() async throws {
        #expect(ProcessIdentity.app(ofProcess: nil) == .failure(ProcessIdentity.Unknown(pid: nil, .noProcessID)))
        #expect(ProcessIdentity.app(ofProcess: 0) == .failure(ProcessIdentity.Unknown(pid: 0, .noProcessID)))
        // A process that has exited and been reaped.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        let pid = UInt32(process.processIdentifier)
        let gone = ProcessIdentity.app(ofProcess: pid)
        #expect(gone == .failure(ProcessIdentity.Unknown(pid: pid, .processGone)), "\(gone)")
        #expect("\(ProcessIdentity.Unknown(pid: pid, .permissionDenied))".contains("CAP_SYS_PTRACE"))
    }
}
