// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthTestSupport
import Testing

/// `polkit/org.localauth.LocalAuthentication1.policy` declares exactly the actions the daemon asks
/// about, each with a description, a message and valid defaults; against polkit's DTD where
/// xmllint is installed, and through `pkaction` where polkitd runs and the file is installed.
@Suite("polkit policy file", .timeLimit(.minutes(1)))
struct PolkitPolicyFileTests {
    static let file = ContractTests.repositoryRoot.appendingPathComponent("polkit/org.localauth.LocalAuthentication1.policy").path
    static let actions = [
        "org.localauth.LocalAuthentication1.act-for-other-users",
        "org.localauth.LocalAuthentication1.reset-lockout",
        "org.localauth.LocalAuthentication1.simulator",
    ]

    /// Prints the action ids one per line, or the first problem and exits 1.
    static let check = #"""
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
if root.tag != 'policyconfig':
    sys.exit('root element <%s>, not <policyconfig>' % root.tag)
for action in root.findall('action'):
    name = action.get('id', '')
    for tag in ('description', 'message'):
        if not (action.findtext(tag) or '').strip():
            sys.exit('%s has no <%s>' % (name, tag))
    defaults = action.find('defaults')
    for tag in ('allow_any', 'allow_inactive', 'allow_active'):
        value = defaults.findtext(tag) if defaults is not None else None
        if value not in ('no', 'yes', 'auth_self', 'auth_admin', 'auth_self_keep', 'auth_admin_keep'):
            sys.exit('%s: <%s> is %r' % (name, tag, value))
    print(name)
"""#

    @Test func declaresExactlyTheActionsTheDaemonAsksAbout() async throws {
        let result = try await runTool("/usr/bin/python3", ["-c", Self.check, Self.file])
        try #require(result.status == 0, "\(Self.file): \(result.output)")
        #expect(result.output.split(separator: "\n").map(String.init).sorted() == Self.actions, "\(result.output)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint")
                   && FileManager.default.fileExists(atPath: "/usr/share/polkit-1/policyconfig-1.dtd")))
    func isValidAgainstPolkitsDTD() async throws {
        let result = try await runTool("/usr/bin/xmllint", ["--noout", "--nonet", "--dtdvalid", "/usr/share/polkit-1/policyconfig-1.dtd", Self.file])
        #expect(result.status == 0 && result.output.isEmpty, "\(result.output)")
    }

    /// Only where the package is installed and polkitd answers on the system bus.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/polkit-1/actions/org.localauth.LocalAuthentication1.policy")
                   && FileManager.default.fileExists(atPath: "/run/dbus/system_bus_socket")))
    func pkactionKnowsEveryAction() async throws {
        for action in Self.actions {
            let result = try await runTool("/usr/bin/pkaction", ["--action-id", action, "--verbose"])
            #expect(result.status == 0 && result.output.contains("implicit active:"), "pkaction \(action): \(result.output)")
        }
    }
}
