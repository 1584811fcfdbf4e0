// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// The bus policies as installed (issue 28 item 1): the test bus loads the installed files, and the
/// fprintd provider's file lets fprintd's device signals reach the provider.
@Suite(.timeLimit(.minutes(3)))
struct InstalledPolicyTests {
    /// Listens as the provider's user: owns org.localauth.Provider.Fprintd, prints `ready`, then one
    /// line per signal of fprintd's Device interface or of Provider1, and leaves after Provider1's.
    static let listener = """
        import sys, dbus, dbus.mainloop.glib
        from gi.repository import GLib
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        bus = dbus.bus.BusConnection(sys.argv[1])
        bus.request_name('org.localauth.Provider.Fprintd', dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
        loop = GLib.MainLoop()
        def got(*args, interface=None, member=None):
            print(interface, member, flush=True)
            if interface == 'org.localauth.Provider1':
                loop.quit()
        for name in ['net.reactivated.Fprint.Device', 'org.localauth.Provider1']:
            bus.add_signal_receiver(got, dbus_interface=name, interface_keyword='interface', member_keyword='member')
        print('ready', flush=True)
        loop.run()
        """

    @Test func eachLoadedPolicyDiffersFromTheInstalledFileOnlyInItsUserNames() throws {
        for policy in try SystemPolicy.installed() {
            #expect(SystemPolicy.differenceBeyondUsers(installed: policy.installedText, loaded: policy.text, users: policy.users) == nil,
                    "\(policy.name)")
        }
        let provider = try SystemPolicy.fprintdProvider()
        let widened = provider.text.replacingOccurrences(of: "<deny send_destination=", with: "<allow send_destination=")
        #expect(SystemPolicy.differenceBeyondUsers(installed: provider.installedText, loaded: widened, users: provider.users) != nil,
                "a rule changed beyond a user name is found")
        let unmapped = provider.text.replacingOccurrences(of: "user=\"\(SystemPolicy.fprintdProviderStandIn)\"", with: "user=\"games\"")
        #expect(SystemPolicy.differenceBeyondUsers(installed: provider.installedText, loaded: unmapped, users: provider.users) != nil,
                "a user mapped to someone else is found")
    }

    /// fprintd (root) broadcasts VerifyStatus and EnrollStatus; a system bus delivers each to the
    /// owner of org.localauth.Provider.Fprintd only if a rule allows it. A Provider1 signal, which
    /// root may always send there, follows them as a marker: in order, so the listener has seen
    /// fprintd's two before the marker, or the policy dropped them.
    @Test func fprintdsDeviceSignalsReachTheProvidersUser() async throws {
        let bus = try PrivateBus.system(policies: try SystemPolicy.installed())
        defer { bus.stop() }
        let process = Process()
        let arguments = ["-c", Self.listener, bus.address]
        if let standIn = getpwnam(SystemPolicy.fprintdProviderStandIn)?.pointee, standIn.pw_uid != getuid() {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(standIn.pw_uid)", "--regid=\(standIn.pw_gid)", "--clear-groups", "/usr/bin/python3"] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = arguments
        }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        defer { ChildProcess.kill(process) }
        let output = ChildOutput(pipe)
        #expect(try await output.lines.next(within: .seconds(60)) == "ready", "\(output.text)")

        let fprintd = try await bus.connect()
        defer { fprintd.close() }
        try fprintd.emitSignal(path: "/net/reactivated/Fprint/Device/0", interface: "net.reactivated.Fprint.Device",
                               member: "VerifyStatus", arguments: [.string("verify-match"), .bool(true)])
        try fprintd.emitSignal(path: "/net/reactivated/Fprint/Device/0", interface: "net.reactivated.Fprint.Device",
                               member: "EnrollStatus", arguments: [.string("enroll-stage-passed"), .bool(false)])
        try fprintd.emitSignal(path: "/org/localauth/Provider1", interface: "org.localauth.Provider1", member: "Marker", arguments: [])
        var seen: [String] = []
        while seen.last != "org.localauth.Provider1 Marker" {
            seen.append(try await output.lines.next(within: .seconds(60)))
        }
        #expect(seen == [
            "net.reactivated.Fprint.Device VerifyStatus",
            "net.reactivated.Fprint.Device EnrollStatus",
            "org.localauth.Provider1 Marker",
        ], "\(output.text)")
    }
}
