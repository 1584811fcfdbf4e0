// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// The login keyring after a fingerprint login: pam_localauth releases the stored login password,
/// checks it on the localauth-keyring service (the shipped pam/localauth-keyring with pam_matrix in
/// place of pam_unix) and sets PAM_AUTHTOK, which the next module,
/// pam_authtok_probe.so (standing in for pam_gnome_keyring), writes to a file. Serialized: each
/// pamtester picks pam_wrapper's /tmp/pam.X directory by its pid, and two starting at the same
/// moment can share one (and read each other's services), so fewer run at once.
@Suite("pam_localauth.so: the login keyring", .serialized, .timeLimit(.minutes(3)))
struct KeyringPAMTests {
    static let finger = "right-index-finger"
    static let passcode = "4711-secret"
    static let loginPassword = "correct horse battery staple"
    /// What pam_matrix in the login stack itself accepts when the password is typed.
    static let typedPassword = "typed-at-the-prompt"
    static let configuration = "simulator_event_ttl = 600\n"

    private func withKeyring(storing password: String? = loginPassword, accepting accepted: String = loginPassword, arguments: String = "",
                             _ body: (Client, KeyringServices) async throws -> Void) async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(passcode: Self.passcode, fingers: [Self.finger])
            if let password { try await client.storeLoginPassword(password) }
            let services = try KeyringServices(bus: bus, accepting: accepted, arguments: arguments)
            try await body(client, services)
        }
    }

    @Test func aTouchHandsTheStoredPasswordToTheNextModule() async throws {
        try await withKeyring { client, services in
            let tester = try services.pam.pamtester("login")
            try await tester.waitForLine(containing: "Touch the fingerprint sensor to sign in as root (login).")
            try await client.simulator("Touch", [.string(Self.finger)])
            // Within 30 s: a module that asked for a finger again inside localauth-keyring would wait 60 s.
            let result = try await tester.finish()
            #expect(result.status == 0 && result.output.contains(PAMOutcome.success), "\(result.output)")
            #expect(!result.output.contains("Password:"), "\(result.output)")
            #expect(try services.probed() == "authtok:" + Self.loginPassword, "\(result.output)")
            #expect(try await client.loginPasswordStored() == true)
        }
    }

    /// An administrator who puts pam_localauth in front of the keyring service (as common-auth
    /// would): the module steps aside there (PAM_IGNORE) instead of asking for a finger while it
    /// checks the password it was just given, which would wait out its 60 s timeout.
    @Test func pamLocalauthStepsAsideInsideTheKeyringService() async throws {
        try await withKeyring { client, services in
            let keyring = services.pam.directory.appendingPathComponent("localauth-keyring")
            let shipped = try String(contentsOf: keyring, encoding: .utf8)
            try "auth sufficient \(PAMHarness.module) bus=\(services.bus) timeout=60\n\(shipped)"
                .write(to: keyring, atomically: true, encoding: .utf8)
            let tester = try services.pam.pamtester("login")
            try await tester.waitForLine(containing: "Touch the fingerprint sensor to sign in as root (login).")
            try await client.simulator("Touch", [.string(Self.finger)])
            let result = try await tester.finish(within: .seconds(30))
            #expect(result.status == 0 && result.output.contains(PAMOutcome.success), "\(result.output)")
            #expect(try services.probed() == "authtok:" + Self.loginPassword, "\(result.output)")
        }
    }

    @Test func aTypedPasscodeReleasesNothing() async throws {
        try await withKeyring(arguments: "policy=owner") { client, services in
            try await client.simulator("Touch", [.string("left-thumb")])
            let result = try await services.pam.run("login", input: Self.passcode + "\n")
            #expect(result.status == 0 && result.output.contains("Passcode:"), "\(result.output)")
            #expect(try services.probed() == "none", "the passcode was typed: no PAM_AUTHTOK from pam_localauth")
            #expect(try await client.loginPasswordStored() == true)
        }
    }

    @Test func aRemoteLoginReleasesNothing() async throws {
        try await withKeyring { client, services in
            try await client.simulator("Touch", [.string(Self.finger)])
            let result = try await services.pam.run("login", input: Self.typedPassword + "\n", items: ["rhost=laptop.example.org"])
            #expect(result.status == 0 && result.output.contains("Password:") && !result.output.contains("Touch"), "\(result.output)")
            // pam_matrix, which took the typed password, wipes it in place: the probe sees an empty token.
            let probed = try services.probed()
            #expect(probed.hasPrefix("authtok:") && !probed.contains(Self.loginPassword), "\(probed)")
            let pending = try await client.connection.property("Pending", interface: LocalAuthBusNames.simulatorInterface,
                                                               path: LocalAuthBusNames.simulatorPath, destination: LocalAuthBusNames.busName)
            #expect(pending == .uint32(1), "the touch was not read")
        }
    }

    @Test func aNoMatchThenATypedPasswordHandsOnlyTheTypedOne() async throws {
        try await withKeyring { client, services in
            try await client.simulator("Touch", [.string("left-thumb")])
            let result = try await services.pam.run("login", input: Self.typedPassword + "\n")
            #expect(result.status == 0 && result.output.contains("Fingerprint not recognized") && result.output.contains("Password:"),
                    "\(result.output)")
            try expectOnlyTheTypedPassword(services)
            #expect(try await client.loginPasswordStored() == true)
        }
    }

    @Test func aCancelThenATypedPasswordHandsOnlyTheTypedOne() async throws {
        try await withKeyring { client, services in
            let tester = try services.pam.pamtester("login", interruptible: true)
            try await tester.waitForLine(containing: "Touch the fingerprint sensor")
            tester.interrupt()
            try await tester.waitForLine(containing: "Cancelled; use your password.")
            tester.write(Self.typedPassword + "\n")
            let result = try await tester.finish()
            #expect(result.status == 0 && result.output.contains(PAMOutcome.success), "\(result.output)")
            try expectOnlyTheTypedPassword(services)
            #expect(try await client.loginPasswordStored() == true)
        }
    }

    /// The probe saw a PAM_AUTHTOK that is the typed password (or empty: pam_matrix, which took it,
    /// wipes it in place), never the stored login password.
    private func expectOnlyTheTypedPassword(_ services: KeyringServices) throws {
        let probed = try services.probed()
        let token = probed.dropFirst("authtok:".count)
        #expect(probed.hasPrefix("authtok:") && (token.isEmpty || token == Self.typedPassword), "\(probed)")
        #expect(!probed.contains(Self.loginPassword), "\(probed)")
    }

    @Test func theShippedServiceChecksThePasswordAlone() throws {
        #expect(try KeyringServices.shippedStack() == ["auth required pam_unix.so"],
                "pam/localauth-keyring must stay password-only: no include, no biometric module")
    }

    @Test func aChangedPasswordIsDiscardedWithAMessage() async throws {
        try await withKeyring(accepting: "the-new-login-password") { client, services in
            try await client.simulator("Touch", [.string(Self.finger)])
            let texts = try await services.pam.pypamtest("login", expecting: 0)
            #expect(texts.info.contains { $0.contains("The stored login password no longer works (was it changed?)")
                && $0.contains("localauth keyring enroll") }, "\(texts.info)")
            #expect(try services.probed() == "none")
            #expect(try await client.loginPasswordStored() == false)
        }
    }

    @Test func withNothingStoredATouchLogsInAsBefore() async throws {
        try await withKeyring(storing: nil) { client, services in
            try await client.simulator("Touch", [.string(Self.finger)])
            let texts = try await services.pam.pypamtest("login", expecting: 0)
            #expect(texts.errors.isEmpty && !texts.info.contains { $0.contains("login password") }, "\(texts)")
            #expect(try services.probed() == "none")
            #expect(try await client.loginPasswordStored() == false)
        }
    }

    @Test func nokeyringKeepsThePasswordBack() async throws {
        try await withKeyring(arguments: "nokeyring") { client, services in
            try await client.simulator("Touch", [.string(Self.finger)])
            let result = try await services.pam.run("login")
            #expect(result.status == 0, "\(result.output)")
            #expect(try services.probed() == "none")
            #expect(try await client.loginPasswordStored() == true)
        }
    }
}

/// The services of the keyring tests, beside ``PAMHarness``'s own in its directory:
/// - `login`: pam_localauth (a success skips the password), pam_matrix for a typed password, then
///   pam_authtok_probe.so, which writes the PAM_AUTHTOK it is handed to ``probeFile``;
/// - `localauth-keyring`: the shipped pam/localauth-keyring with pam_matrix in place of pam_unix,
///   accepting `accepting` for root: the login password as the system knows it.
struct KeyringServices {
    let pam: PAMHarness
    let probeFile: String
    /// The private bus's address, as the modules are given it.
    let bus: String

    /// `make pam` builds the probe beside the module.
    static var probe: String {
        URL(fileURLWithPath: PAMHarness.module).deletingLastPathComponent().appendingPathComponent("pam_authtok_probe.so").path
    }

    init(bus: PrivateBus, accepting password: String, arguments: String = "") throws {
        try #require(FileManager.default.fileExists(atPath: Self.probe), "\(Self.probe) is missing: run `make pam` (or `make test`) before `swift test`")
        pam = try PAMHarness(bus: bus)
        self.bus = bus.address
        let directory = pam.directory
        probeFile = directory.appendingPathComponent("probed").path
        let module = "\(PAMHarness.module) bus=\(bus.address) timeout=60 \(arguments)"
        let loginDB = directory.appendingPathComponent("login-passdb").path
        try "\(PAMHarness.user):\(KeyringPAMTests.typedPassword):login\n".write(toFile: loginDB, atomically: true, encoding: .utf8)
        try Self.writeKeyringService(in: directory, accepting: password)
        try """
            auth [success=1 default=ignore] \(module)
            auth requisite \(PAMHarness.matrix) passdb=\(loginDB)
            auth required \(Self.probe) file=\(probeFile)

            """.write(to: directory.appendingPathComponent("login"), atomically: true, encoding: .utf8)
    }

    /// pam/localauth-keyring as shipped.
    static var shippedService: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("pam/localauth-keyring")
    }

    /// The shipped service's lines without comments and blank lines.
    static func shippedStack() throws -> [String] {
        try String(contentsOf: shippedService, encoding: .utf8).split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// `localauth-keyring` in `directory`: the shipped stack with pam_matrix, accepting `password`
    /// for root, in place of pam_unix (the same shape as what is installed).
    static func writeKeyringService(in directory: URL, accepting password: String) throws {
        let passdb = directory.appendingPathComponent("keyring-passdb").path
        try "\(PAMHarness.user):\(password):localauth-keyring\n".write(toFile: passdb, atomically: true, encoding: .utf8)
        let stack = try shippedStack()
        try #require(stack.contains { $0.contains(" pam_unix.so") }, "pam/localauth-keyring has no pam_unix.so line to stand in for")
        try stack.map { $0.replacingOccurrences(of: " pam_unix.so", with: " \(PAMHarness.matrix) passdb=\(passdb)") + "\n" }.joined()
            .write(to: directory.appendingPathComponent("localauth-keyring"), atomically: true, encoding: .utf8)
    }

    /// What the probe wrote: "none", or "authtok:" and the token.
    func probed() throws -> String {
        try #require(FileManager.default.fileExists(atPath: probeFile), "the probe did not run")
        return try String(contentsOfFile: probeFile, encoding: .utf8)
    }
}

extension Client {
    /// Rights.StoreLoginPassword, as `localauth keyring enroll` calls it.
    func storeLoginPassword(_ password: String) async throws {
        _ = try await connection.call(destination: LocalAuthBusNames.busName, path: "/org/localauth/LocalAuthentication1/rights",
                                      interface: "org.localauth.LocalAuthentication1.Rights", member: "StoreLoginPassword",
                                      arguments: [.string(password)])
    }

    /// GetUserState's LoginPasswordStored.
    func loginPasswordStored() async throws -> Bool? {
        try await userState()["LoginPasswordStored"]?.bool
    }
}
