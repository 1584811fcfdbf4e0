// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A system-bus policy file as a package installs it into `/usr/share/dbus-1/system.d`, for a
/// test bus (``PrivateBus/system(policies:socketDirectory:)``) that loads it as the system bus does.
///
/// The installed files name system users (`root`, `localauth-fprintd`, `polkitd`) that a test
/// machine may not have or cannot run as. A test loads a copy in which only the `user="…"`
/// attributes change, to the user that plays that part in the test (``standIns``); everything
/// else is the installed text byte for byte, so what the bus enforces is what a package ships.
public struct SystemPolicy: Sendable, Equatable, CustomStringConvertible {
    /// The file name it is installed under (the bus loads it under the same name).
    public let name: String
    /// Where the installed form is read from (the checkout, or the machine for another package's).
    public let source: String
    /// The installed text.
    public let installedText: String
    /// Installed user name → the user name (or uid) that stands in for it on the test bus.
    public let users: [String: String]

    /// Reads the installed form of a policy.
    public init(installedFrom source: String, users: [String: String] = [:]) throws {
        self.source = source
        name = URL(fileURLWithPath: source).lastPathComponent
        installedText = try String(contentsOfFile: source, encoding: .utf8)
        self.users = users
    }

    /// The text the test bus loads: the installed text with each mapped `user="NAME"` replaced.
    public var text: String {
        users.keys.sorted().reduce(installedText) { text, user in
            text.replacingOccurrences(of: "user=\"\(user)\"", with: "user=\"\(users[user]!)\"")
        }
    }

    public var description: String { name }

    /// The same file with each installed user name in `users` mapped to its stand-in.
    public func mapping(_ users: [String: String]) -> SystemPolicy {
        SystemPolicy(name: name, source: source, installedText: installedText, users: self.users.merging(users) { $1 })
    }

    private init(name: String, source: String, installedText: String, users: [String: String]) {
        self.name = name
        self.source = source
        self.installedText = installedText
        self.users = users
    }

    // MARK: The installed files

    /// The checkout root, found from this file: `<root>/Sources/Testing/LocalAuthTestSupport/SystemPolicy.swift`.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// localauthd's own (`dbus/org.localauth.LocalAuthentication1.conf`).
    public static func localauthd() throws -> SystemPolicy {
        try SystemPolicy(installedFrom: repositoryRoot.appendingPathComponent("dbus/org.localauth.LocalAuthentication1.conf").path)
            .mapping(standIns)
    }

    /// The fprintd provider's (`providers/fprintd/org.localauth.Provider.Fprintd.conf`).
    public static func fprintdProvider() throws -> SystemPolicy {
        try SystemPolicy(installedFrom: repositoryRoot.appendingPathComponent("providers/fprintd/org.localauth.Provider.Fprintd.conf").path)
            .mapping(standIns)
    }

    /// The reference provider's (`Examples/providers/org.localauth.Provider.Reference.conf`).
    public static func referenceProvider() throws -> SystemPolicy {
        try SystemPolicy(installedFrom: repositoryRoot.appendingPathComponent("Examples/providers/org.localauth.Provider.Reference.conf").path)
            .mapping(standIns)
    }

    /// fprintd's own, from Debian's `fprintd` package on this machine.
    public static func fprintd() throws -> SystemPolicy {
        try SystemPolicy(installedFrom: "/usr/share/dbus-1/system.d/net.reactivated.Fprint.conf").mapping(standIns)
    }

    /// polkit's own, from Debian's `polkitd` package on this machine, for python3-dbusmock's
    /// `polkitd` template (which runs as the test's user).
    public static func polkit() throws -> SystemPolicy {
        try SystemPolicy(installedFrom: "/usr/share/dbus-1/system.d/org.freedesktop.PolicyKit1.conf").mapping(standIns)
    }

    /// Everything a package install of localauthd with the fprintd provider puts on the system
    /// bus, with fprintd's and polkit's policies (fprintd's tests need both).
    public static func installed() throws -> [SystemPolicy] {
        [try localauthd(), try fprintdProvider(), try referenceProvider(), try fprintd(), try polkit()]
    }

    // MARK: Who plays whom

    /// The user this test process runs as.
    public static let testUser = String(cString: getpwuid(getuid())!.pointee.pw_name)

    /// The existing user that plays `localauth-fprintd` when the tests run as root: a system
    /// account with no other part in the tests (uid 65534 plays "another user"), so the policy's
    /// per-user rules are tested between different uids. Without root every part is the test's user.
    public static let fprintdProviderStandIn: String = getuid() == 0 ? "daemon" : testUser

    /// Installed user name → the user that plays it here. localauthd, fprintd and polkit run as
    /// root when installed and as the test's user in tests; the reference provider's user is the
    /// test's user (its tests start it from the daemon or the test).
    public static var standIns: [String: String] {
        [
            "root": testUser,
            "polkitd": testUser,
            "localauth-fprintd": fprintdProviderStandIn,
            "localauth-reference": testUser,
        ]
    }

    /// Where `loaded` differs from `installed` other than in a `user="…"` attribute whose installed
    /// value `users` maps to the loaded one: the first such line, nil when there is none. Checked
    /// line by line with the attributes cut out, independently of how ``text`` maps them.
    public static func differenceBeyondUsers(installed: String, loaded: String, users: [String: String]) -> String? {
        let installedLines = installed.split(separator: "\n", omittingEmptySubsequences: false)
        let loadedLines = loaded.split(separator: "\n", omittingEmptySubsequences: false)
        guard installedLines.count == loadedLines.count else {
            return "\(installedLines.count) lines installed, \(loadedLines.count) loaded"
        }
        let attribute = #/user="([^"]*)"/#
        for (original, copy) in zip(installedLines, loadedLines) where original != copy {
            let before = original.matches(of: attribute).map { String($0.output.1) }
            let after = copy.matches(of: attribute).map { String($0.output.1) }
            guard original.replacing(attribute, with: "") == copy.replacing(attribute, with: ""), before.count == after.count,
                  zip(before, after).allSatisfy({ users[$0] == $1 || $0 == $1 })
            else { return String(copy) }
        }
        return nil
    }
}
