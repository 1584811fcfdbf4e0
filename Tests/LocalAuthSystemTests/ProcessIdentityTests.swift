// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthSystem
import Testing

@Suite("App identity for face consent")
struct ProcessIdentityTests {
    @Test func sandboxedAppsAreNamedByTheirScopeOthersByTheirExecutable() {
        #expect(ProcessIdentity.sandboxID(cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.gnome.Notes-12345.scope\n")
                == "flatpak:org.gnome.Notes")
        #expect(ProcessIdentity.sandboxID(cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/snap.firefox.firefox-2a8c.scope\n")
                == "snap:firefox")
        #expect(ProcessIdentity.sandboxID(cgroup: "0::/user.slice/user-1000.slice/session-3.scope\n") == nil)
        let own = ProcessIdentity.app(ofProcess: UInt32(getpid()))
        #expect(own == URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path, "\(own ?? "nil")")
        #expect(ProcessIdentity.app(ofProcess: nil) == nil && ProcessIdentity.app(ofProcess: 0) == nil)
    }
}
