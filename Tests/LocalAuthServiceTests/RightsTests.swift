// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies
import LocalAuthTestSupport
import Testing

/// Rights through the real daemon on a private bus: saved, listed and removed; authorized in a
/// context through the simulator (touch) or the passcode; then the secret, a signature checked
/// with `openssl dgst`, ECIES and ECDH checked with `openssl pkeyutl`; invalidation, removal with
/// the passcode, and the login keyring's stored password.
@Suite("Rights over D-Bus", .timeLimit(.minutes(3)))
struct RightsTests {
    static let passcode = "4711-secret"
    /// The wrapping key in the test's state directory, never a TPM the machine may have.
    static let configuration = "key_protection = wrapping-key\n"

    @Test func aRightIsSavedReadListedAndRemoved() async throws {
        try await withDaemon(configuration: Self.configuration) { daemon, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["left-thumb"])
            let rights = client.rightsProxy
            let saved = try await rights.saveRight("mail-key", requirement: "biometry or passcode", secret: Array("hunter2".utf8))
            #expect(saved["Identifier"]?.string == "mail-key")
            #expect(saved["Requirement"]?.string == "biometry or passcode")
            #expect(saved["HasSecret"]?.bool == true)
            #expect(saved["Invalidated"]?.bool == false)
            #expect(saved["Application"]?.string == Self.testExecutable, "the right belongs to the calling executable")
            let publicKey = try #require(saved["PublicKey"]?.bytes)
            #expect(publicKey.count == 65 && publicKey.first == 4, "an X9.63 P-256 public key")
            let created = try #require(saved["Created"]?.uint64)
            #expect(abs(Int64(created) - Int64(Date().timeIntervalSince1970)) < 600)

            #expect(try await rights.right("mail-key") == saved)
            _ = try await rights.saveRight("plain", requirement: "default")
            #expect(try await rights.right("plain")["HasSecret"]?.bool == false)
            #expect(try await rights.rights().map(\.identifier) == ["mail-key", "plain"])
            #expect(try await rights.keyProtection() == "wrapping-key", "\(daemon.logText)")

            try await rights.removeRight("mail-key")
            #expect(await errorName { _ = try await rights.right("mail-key") } == Self.error(.rightNotFound))
            #expect(await errorName { try await rights.removeRight("mail-key") } == Self.error(.rightNotFound))
            try await rights.removeAllRights()
            #expect(try await rights.rights().isEmpty)
            try await rights.removeAllRights()
        }
    }

    /// Clients we did not write: gdbus saves, lists and removes its rights (gdbus is the
    /// application); busctl, another executable, sees none of them.
    @Test func gdbusSavesListsAndRemovesItsRightsAndBusctlSeesNone() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp()
            func gdbus(_ method: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
                try await runTool("/usr/bin/gdbus", ["call", "--address", bus.address, "--dest", LocalAuthBusNames.busName, "--object-path",
                                                     LocalAuthBusNames.rightsPath, "--timeout", "20", "--method", "\(LocalAuthBusNames.rightsInterface).\(method)"] + arguments)
            }
            func busctl(_ arguments: [String]) async throws -> (status: Int32, output: String) {
                try await runTool("/usr/bin/busctl", ["--address=\(bus.address)", "call", LocalAuthBusNames.busName, LocalAuthBusNames.rightsPath,
                                                      LocalAuthBusNames.rightsInterface] + arguments)
            }
            let saved = try await gdbus("SaveRight", ["from-gdbus", "passcode", "[byte 0x41, 0x42]", "{}"])
            #expect(saved.status == 0 && saved.output.contains("'Identifier': <'from-gdbus'>") && saved.output.contains("'HasSecret': <true>"), "\(saved.output)")
            let listed = try await gdbus("ListRights", ["false"])
            #expect(listed.output.contains("('/usr/bin/gdbus', 'from-gdbus')"), "\(listed.output)")
            let other = try await busctl(["GetRight", "s", "from-gdbus"])
            #expect(other.status != 0 && other.output.contains("No such right"), "busctl is another application: \(other.output)")
            let all = try await busctl(["ListRights", "b", "true"])
            #expect(all.status == 0 && all.output.contains("\"/usr/bin/gdbus\" \"from-gdbus\""), "\(all.output)")
            #expect(try await gdbus("RemoveRight", ["from-gdbus"]).status == 0)
            let gone = try await gdbus("GetRight", ["from-gdbus"])
            #expect(gone.status != 0 && gone.output.contains(Self.error(.rightNotFound)), "\(gone.output)")
        }
    }

    @Test func savingNeedsAPasscodeAndBiometryForABiometryTermAndRefusesBadInput() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            let rights = client.rightsProxy
            #expect(await errorName { _ = try await rights.saveRight("r", requirement: "default") } == Self.error(.passcodeNotSet))
            try await client.setUp()
            #expect(await errorName { _ = try await rights.saveRight("r", requirement: "biometry") } == Self.error(.biometryNotEnrolled))
            let invalid = DBusError.Name.invalidArgs.rawValue
            for requirement in ["", "face", "default or", "biometry or passcode and default", "default or default or default or default or default"] {
                #expect(await errorName { _ = try await rights.saveRight("r", requirement: requirement) } == invalid, "\(requirement)")
            }
            for identifier in ["", String(repeating: "x", count: 129), "tab\there", "zero\u{200B}width"] {
                #expect(await errorName { _ = try await rights.saveRight(identifier, requirement: "default") } == invalid, "\(identifier.debugDescription)")
            }
            #expect(await errorName { _ = try await rights.saveRight("r", requirement: "default", secret: [UInt8](repeating: 1, count: 16_385)) } == invalid)
            #expect(await errorName { _ = try await rights.saveRight("r", requirement: "default", options: ["Access": .bool(true)]) } == invalid)
            #expect(try await rights.rights().isEmpty, "nothing refused was saved")
            _ = try await rights.saveRight(String(repeating: "x", count: 128), requirement: "passcode", secret: [UInt8](repeating: 1, count: 16_384))
        }
    }

    /// Touch: AuthorizeRight succeeds; the secret loads; a signature verifies with openssl and
    /// with Verify; DeauthorizeRight ends it.
    @Test func aTouchAuthorizesTheRightAndItsKeySignsWhatOpensslVerifies() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["left-thumb"])
            let saved = try await client.rightsProxy.saveRight("signer", requirement: "biometry", secret: Array("the secret".utf8))
            let publicKey = try #require(saved["PublicKey"]?.bytes)
            let context = client.contextProxy(try await client.createContext())
            #expect(await errorName { _ = try await context.loadSecret("signer") } == Self.error(.rightNotAuthorized))
            try await context.checkCanAuthorizeRight("signer")
            #expect(await client.authorize(context, "signer") { try await client.simulator("Touch", [.string("left-thumb")]) } == nil)
            #expect(try await context.loadSecret("signer") == Array("the secret".utf8))

            let data = Array("signed by a right".utf8)
            let signature = try await context.sign("signer", algorithm: RightKeyAlgorithmName.signMessage, data: data)
            #expect(try await Self.opensslVerifies(signature, of: data, publicKey: publicKey))
            #expect(try await !Self.opensslVerifies(signature, of: data + [0], publicKey: publicKey))
            #expect(try await client.rightsProxy.verify(publicKey: publicKey, algorithm: RightKeyAlgorithmName.signMessage, signedData: data, signature: signature))
            #expect(try await !client.rightsProxy.verify(publicKey: publicKey, algorithm: RightKeyAlgorithmName.signMessage, signedData: data + [0], signature: signature))
            let digest = try await Self.sha256(data)
            let digestSignature = try await context.sign("signer", algorithm: RightKeyAlgorithmName.signDigest, data: digest)
            #expect(try await Self.opensslVerifies(digestSignature, of: data, publicKey: publicKey), "a signed digest verifies as the message's signature")
            #expect(await errorName { _ = try await context.sign("signer", algorithm: "algid:sign:RSA:message-PSS:SHA256", data: data) }
                    == DBusError.Name.invalidArgs.rawValue)

            try await context.deauthorizeRight("signer")
            try await context.deauthorizeRight("signer")
            #expect(await errorName { _ = try await context.sign("signer", algorithm: RightKeyAlgorithmName.signMessage, data: data) } == Self.error(.rightNotAuthorized))
        }
    }

    /// ECIES: anyone encrypts to the public key; only a context that authorized the right decrypts.
    /// The passcode (SubmitPasscode, as the agent would send it) authorizes a `passcode` right.
    @Test func encryptNeedsNoAuthorizationDecryptNeedsThePasscode() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp()
            let saved = try await client.rightsProxy.saveRight("box", requirement: "passcode")
            let publicKey = try #require(saved["PublicKey"]?.bytes)
            let plaintext = Array("for the right's eyes only".utf8)
            let ciphertext = try await client.rightsProxy.encrypt(publicKey: publicKey, algorithm: RightKeyAlgorithmName.eciesStandard, plaintext: plaintext)
            #expect(ciphertext.count == 65 + plaintext.count + 16, "ephemeral key ‖ ciphertext ‖ tag")
            let context = client.contextProxy(try await client.createContext())
            #expect(await errorName { _ = try await context.decrypt("box", algorithm: RightKeyAlgorithmName.eciesStandard, ciphertext: ciphertext) }
                    == Self.error(.rightNotAuthorized))
            #expect(await errorName { _ = try await context.loadSecret("box") } == Self.error(.rightNotAuthorized))
            let outcome = await client.authorize(context, "box", prompt: "passcode") { try await context.submitPasscode(.string(Self.passcode)) }
            #expect(outcome == nil)
            #expect(try await context.decrypt("box", algorithm: RightKeyAlgorithmName.eciesStandard, ciphertext: ciphertext) == plaintext)
            #expect(await errorName { _ = try await context.loadSecret("box") } == DBusError.Name.invalidArgs.rawValue, "saved without a secret")
            var tampered = ciphertext
            tampered[tampered.count - 1] ^= 1
            #expect(await errorName { _ = try await context.decrypt("box", algorithm: RightKeyAlgorithmName.eciesStandard, ciphertext: tampered) }
                    == DBusError.Name.invalidArgs.rawValue)
            // A wrong passcode does not authorize (and is counted).
            let other = client.contextProxy(try await client.createContext())
            let wrong = await client.authorize(other, "box", prompt: "passcode") {
                #expect(await errorName { try await other.submitPasscode(.string("not-it")) } == Self.error(.authenticationFailed))
                try await other.cancel()
            }
            #expect(wrong == Self.error(.userCancel))
            #expect(await errorName { _ = try await other.decrypt("box", algorithm: RightKeyAlgorithmName.eciesStandard, ciphertext: ciphertext) }
                    == Self.error(.rightNotAuthorized))
        }
    }

    /// Without app passcode entry the session's agent shows the sheet and takes the passcode for
    /// AuthorizeRight, as for EvaluatePolicy; "biometry and passcode" asks for both in turn.
    @Test func theAgentTakesThePasscodeForARight() async throws {
        try await withDaemon(configuration: Self.configuration + "app_passcode_entry = false\n") { _, bus in
            let app = try await Client(bus)
            try await app.setUp(fingers: ["left-thumb"])
            let agent = try await TestAgent(bus)
            try await agent.register()
            _ = try await app.rightsProxy.saveRight("both", requirement: "biometry and passcode", secret: Array("two factors".utf8))
            let context = app.contextProxy(try await app.createContext())
            let authorization = Task { await errorName { try await context.authorizeRight("both", reason: "open the vault", timeout: .seconds(60)) } }
            let begin = try await agent.next("begin")
            guard case .begin(_, _, let request) = begin else { throw TestAgent.Unexpected() }
            #expect(request["Reason"] == .string("open the vault"), "\(request)")
            try await app.simulator("Touch", [.string("left-thumb")])
            let wanted = try await agent.next("passcode", within: .seconds(60))
            #expect(await errorName { try await context.submitPasscode(.string(Self.passcode)) } == DBusError.Name.notSupported.rawValue,
                    "the app may not type the passcode")
            try await agent.respond(try #require(wanted.cookie), "passcode", passcode: Self.passcode)
            #expect(await authorization.value == nil)
            #expect(try await context.loadSecret("both") == Array("two factors".utf8))
        }
    }

    /// ECDH with a peer key made by openssl: the raw shared secret is openssl's.
    @Test func exchangeKeysAgreesWithOpenssl() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["left-thumb"])
            let saved = try await client.rightsProxy.saveRight("agree", requirement: "default")
            let publicKey = try #require(saved["PublicKey"]?.bytes)
            let context = client.contextProxy(try await client.createContext())
            #expect(await client.authorize(context, "agree") { try await client.simulator("Touch", [.string("left-thumb")]) } == nil)

            let scratch = try ScratchDirectory(prefix: "rights")
            let peer = scratch.path("peer.pem")
            #expect(try await runTool("/usr/bin/openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", peer]).status == 0)
            let der = scratch.path("peer.der")
            #expect(try await runTool("/usr/bin/openssl", ["pkey", "-in", peer, "-pubout", "-outform", "DER", "-out", der]).status == 0)
            let peerPublic = Array(try Data(contentsOf: URL(fileURLWithPath: der)).suffix(65))
            let rightPEM = scratch.path("right.pem")
            try Self.pem(publicKey).write(toFile: rightPEM, atomically: true, encoding: .utf8)
            let sharedFile = scratch.path("shared")
            let derived = try await runTool("/usr/bin/openssl", ["pkeyutl", "-derive", "-inkey", peer, "-peerkey", rightPEM, "-out", sharedFile])
            #expect(derived.status == 0, "\(derived.output)")
            let expected = Array(try Data(contentsOf: URL(fileURLWithPath: sharedFile)))

            #expect(try await context.exchangeKeys("agree", publicKey: peerPublic, algorithm: RightKeyAlgorithmName.ecdhStandard) == expected)
            let kdf = try await context.exchangeKeys("agree", publicKey: peerPublic, algorithm: RightKeyAlgorithmName.ecdhStandardX963,
                                                     parameters: ["RequestedSize": .uint32(48), "SharedInfo": .bytes([1, 2, 3])])
            #expect(kdf.count == 48 && kdf != Array(expected.prefix(48)))
            #expect(await errorName { _ = try await context.exchangeKeys("agree", publicKey: peerPublic, algorithm: RightKeyAlgorithmName.ecdhStandard,
                                                                         parameters: ["Size": .uint32(32)]) } == DBusError.Name.invalidArgs.rawValue)
            #expect(await errorName { _ = try await context.exchangeKeys("agree", publicKey: Array(peerPublic.dropLast()), algorithm: RightKeyAlgorithmName.ecdhStandard) }
                    == DBusError.Name.invalidArgs.rawValue)
        }
    }

    /// A biometry-current-set right stops working once the enrollments change: GetRight says
    /// Invalidated; checking, authorizing and operations of an authorized context fail with RightInvalidated.
    @Test func aBiometryCurrentSetRightIsInvalidatedByAnEnrollment() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["left-thumb"])
            let rights = client.rightsProxy
            _ = try await rights.saveRight("current", requirement: "biometry-current-set", secret: [7])
            let context = client.contextProxy(try await client.createContext())
            #expect(await client.authorize(context, "current") { try await client.simulator("Touch", [.string("left-thumb")]) } == nil)
            #expect(try await context.loadSecret("current") == [7])

            try await client.managerProxy.enroll(modality: "fingerprint", label: "right-thumb", passcode: .string(Self.passcode))
            #expect(try await rights.right("current")["Invalidated"]?.bool == true)
            #expect(await errorName { _ = try await context.loadSecret("current") } == Self.error(.rightInvalidated))
            #expect(await errorName { try await context.checkCanAuthorizeRight("current") } == Self.error(.rightInvalidated))
            let again = client.contextProxy(try await client.createContext())
            #expect(await errorName { try await again.authorizeRight("current", reason: "test") } == Self.error(.rightInvalidated))
            #expect(try await rights.rights().map(\.identifier) == ["current"], "the record stays until removed")
        }
    }

    /// Saving the identifier again makes a new key and ends the old right's authorizations; a
    /// removal ends them too.
    @Test func replacingOrRemovingARightEndsItsAuthorizations() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["left-thumb"])
            let rights = client.rightsProxy
            let first = try await rights.saveRight("r", requirement: "biometry", secret: [1])
            let context = client.contextProxy(try await client.createContext())
            #expect(await client.authorize(context, "r") { try await client.simulator("Touch", [.string("left-thumb")]) } == nil)
            let second = try await rights.saveRight("r", requirement: "biometry", secret: [2])
            #expect(first["PublicKey"] != second["PublicKey"], "a new key")
            #expect(await errorName { _ = try await context.loadSecret("r") } == Self.error(.rightNotAuthorized))
            #expect(await client.authorize(context, "r") { try await client.simulator("Touch", [.string("left-thumb")]) } == nil)
            #expect(try await context.loadSecret("r") == [2])
            try await rights.removeRight("r")
            #expect(await errorName { _ = try await context.loadSecret("r") } == Self.error(.rightNotFound))
        }
    }

    /// RemovePasscode removes every right of the user, of every application, and the stored
    /// login password (Apple: items that vanish with the passcode).
    @Test func removingThePasscodeRemovesEveryRightAndTheLoginPassword() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["left-thumb"])
            _ = try await client.rightsProxy.saveRight("a", requirement: "default", secret: [1])
            _ = try await client.rightsProxy.saveRight("b", requirement: "passcode")
            try await client.rightsProxy.storeLoginPassword(.string("login-pw"))
            let python = try await Self.python(bus, """
                r = dbus.Interface(bus.get_object(N, M + '/rights'), N + '.Rights')
                r.SaveRight('py', 'default', dbus.ByteArray(b'x'), dbus.Dictionary({}, signature='sv'))
                print('saved')
                """)
            #expect(python.output.contains("saved"), "\(python.output)")
            let listed = try await client.rightsProxy.rights(allApplications: true).map { "\($0.application) \($0.identifier)" }
            // The stored login password is the reserved application's right, listed with every application's.
            #expect(listed.count == 4 && listed.contains("localauthd:login-keyring login-password"), "\(listed)")
            #expect(try await client.userState()["LoginPasswordStored"]?.bool == true)

            try await client.managerProxy.removePasscode(current: .string(Self.passcode))
            #expect(try await client.rightsProxy.rights(allApplications: true).isEmpty)
            #expect(try await client.userState()["LoginPasswordStored"]?.bool == false)
            #expect(await errorName { _ = try await client.rightsProxy.right("a") } == Self.error(.rightNotFound))
        }
    }

    /// The user removes another application's right with the passcode (checked and counted).
    @Test func removeApplicationRightTakesThePasscode() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp()
            let python = try await Self.python(bus, """
                r = dbus.Interface(bus.get_object(N, M + '/rights'), N + '.Rights')
                print('app', r.SaveRight('theirs', 'default', dbus.ByteArray(b''), dbus.Dictionary({}, signature='sv'))['Application'])
                """)
            let application = try #require(python.output.split(separator: "\n").first { $0.hasPrefix("app ") }.map { String($0.dropFirst(4)) }, "\(python.output)")
            let rights = client.rightsProxy
            #expect(try await rights.rights(allApplications: true).map { "\($0.application) \($0.identifier)" } == ["\(application) theirs"])
            #expect(try await rights.rights().isEmpty, "not the test's own")
            #expect(await errorName { try await rights.removeApplicationRight(application: application, identifier: "theirs", passcode: .string("wrong")) }
                    == Self.error(.authenticationFailed))
            #expect(try await client.userState()["PasscodeFailures"]?.uint32 == 1, "counted")
            #expect(await errorName { try await rights.removeApplicationRight(application: application, identifier: "nope", passcode: .string(Self.passcode)) }
                    == Self.error(.rightNotFound))
            try await rights.removeApplicationRight(application: application, identifier: "theirs", passcode: .string(Self.passcode))
            #expect(try await rights.rights(allApplications: true).isEmpty)
        }
    }

    /// The stored login password is released once, to root, on a User context whose last
    /// evaluation was a fresh biometric match; never after the passcode; discarded on request.
    @Test(.enabled(if: getuid() == 0, "the login password is released to root only"))
    func theLoginPasswordIsReleasedOnceAfterATouch() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["left-thumb"])
            let noneYet = client.contextProxy(try await client.createContext(["User": .uint32(0)]))
            #expect(await errorName { _ = try await noneYet.releaseLoginPassword() } == Self.error(.rightNotFound))
            try await client.rightsProxy.storeLoginPassword(.string("correct horse"))
            #expect(try await client.userState()["LoginPasswordStored"]?.bool == true)

            let touched = client.contextProxy(try await client.createContext(["User": .uint32(0)]))
            #expect(await errorName { _ = try await touched.releaseLoginPassword() } == Self.error(.rightNotAuthorized), "no evaluation yet")
            #expect(await errorName { try await touched.discardLoginPassword() } == Self.error(.rightNotAuthorized), "not released yet")
            let evaluation = try await client.begin(touched.path, policy: 1)
            try await client.simulator("Touch", [.string("left-thumb")])
            #expect(await evaluation.value == nil)
            #expect(try await touched.releaseLoginPassword().withBytes { String(decoding: $0, as: UTF8.self) } == "correct horse")
            #expect(await errorName { _ = try await touched.releaseLoginPassword() } == Self.error(.rightNotAuthorized), "once per context")

            let typed = client.contextProxy(try await client.createContext(["User": .uint32(0)]))
            let byPasscode = try await client.begin(typed.path, policy: 2)
            try await typed.submitPasscode(.string(Self.passcode))
            #expect(await byPasscode.value == nil)
            #expect(await errorName { _ = try await typed.releaseLoginPassword() } == Self.error(.rightNotAuthorized), "never after the passcode")

            let own = client.contextProxy(try await client.createContext())
            let ownEvaluation = try await client.begin(own.path, policy: 1)
            try await client.simulator("Touch", [.string("left-thumb")])
            #expect(await ownEvaluation.value == nil)
            #expect(await errorName { _ = try await own.releaseLoginPassword() } == Self.error(.rightNotAuthorized), "only a context created with User")

            try await touched.discardLoginPassword()
            #expect(try await client.userState()["LoginPasswordStored"]?.bool == false)
            #expect(await errorName { try await client.rightsProxy.removeLoginPassword() } == Self.error(.rightNotFound))
            try await client.rightsProxy.storeLoginPassword(.string("again"))
            try await client.rightsProxy.removeLoginPassword()
            #expect(try await client.userState()["LoginPasswordStored"]?.bool == false)
        }
    }

    /// EvaluateRequirement: a requirement without a saved right, with DomainState binding a
    /// biometry-current-set term to the enrollments it was made with.
    @Test func evaluateRequirementChecksTheDomainState() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["left-thumb"])
            let context = client.contextProxy(try await client.createContext())
            try await context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics)
            let domainState = try #require(try await context.property("EvaluatedPolicyDomainState").bytes)
            try await context.canEvaluateRequirement("biometry-current-set", options: ["DomainState": .bytes(domainState)])
            #expect(await client.evaluate(context, "biometry-current-set", options: ["DomainState": .bytes(domainState)]) {
                try await client.simulator("Touch", [.string("left-thumb")])
            } == nil)
            try await client.managerProxy.enroll(modality: "fingerprint", label: "right-thumb", passcode: .string(Self.passcode))
            #expect(await errorName { try await context.canEvaluateRequirement("biometry-current-set", options: ["DomainState": .bytes(domainState)]) }
                    == Self.error(.rightInvalidated))
            #expect(await errorName { try await context.evaluateRequirement("biometry-current-set", reason: "test", options: ["DomainState": .bytes(domainState)]) }
                    == Self.error(.rightInvalidated))
            #expect(await errorName { try await context.canEvaluateRequirement("default", options: ["Other": .bool(true)]) } == DBusError.Name.invalidArgs.rawValue)
        }
    }

    // MARK: Helpers

    /// The path the daemon identifies this test process by.
    static var testExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    }

    static func error(_ name: LocalAuthErrorName) -> String { name.dbusName }

    /// Runs a python3-dbus script (after ``PythonDBusClient/prelude``) on `bus`, optionally as another user.
    static func python(_ bus: PrivateBus, _ script: String, asUser uid: UInt32? = nil) async throws -> (status: Int32, output: String) {
        let arguments = ["-c", PythonDBusClient.prelude + script, bus.address]
        guard let uid else { return try await runTool("/usr/bin/python3", arguments, timeout: .seconds(60)) }
        return try await runTool("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/python3"] + arguments, timeout: .seconds(60))
    }

    /// A PEM SubjectPublicKeyInfo of an X9.63 P-256 public key, for openssl.
    static func pem(_ x963: [UInt8]) -> String {
        let prefix: [UInt8] = [0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48,
                               0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00]
        return "-----BEGIN PUBLIC KEY-----\n" + Data(prefix + x963).base64EncodedString(options: .lineLength64Characters) + "\n-----END PUBLIC KEY-----\n"
    }

    /// Whether `openssl dgst -sha256 -verify` accepts `signature` of `data` by `publicKey`.
    static func opensslVerifies(_ signature: [UInt8], of data: [UInt8], publicKey: [UInt8]) async throws -> Bool {
        let scratch = try ScratchDirectory(prefix: "rights")
        try Self.pem(publicKey).write(toFile: scratch.path("key.pem"), atomically: true, encoding: .utf8)
        try Data(signature).write(to: URL(fileURLWithPath: scratch.path("signature")))
        try Data(data).write(to: URL(fileURLWithPath: scratch.path("data")))
        let result = try await runTool("/usr/bin/openssl", ["dgst", "-sha256", "-verify", scratch.path("key.pem"), "-signature", scratch.path("signature"),
                                                            scratch.path("data")])
        return result.status == 0 && result.output.contains("Verified OK")
    }

    static func sha256(_ data: [UInt8]) async throws -> [UInt8] {
        let scratch = try ScratchDirectory(prefix: "rights")
        try Data(data).write(to: URL(fileURLWithPath: scratch.path("data")))
        let result = try await runTool("/usr/bin/openssl", ["dgst", "-sha256", "-binary", "-out", scratch.path("digest"), scratch.path("data")])
        try #require(result.status == 0, "\(result.output)")
        return Array(try Data(contentsOf: URL(fileURLWithPath: scratch.path("digest"))))
    }
}

/// The wire names of the algorithms the tests use (`RightKeyAlgorithm`'s raw values, Apple's `SecKeyAlgorithm`).
enum RightKeyAlgorithmName {
    static let signMessage = "algid:sign:ECDSA:message-X962:SHA256"
    static let signDigest = "algid:sign:ECDSA:digest-X962:SHA256"
    static let eciesStandard = "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV"
    static let ecdhStandard = "algid:keyexchange:ECDH"
    static let ecdhStandardX963 = "algid:keyexchange:ECDH:KDFX963:SHA256"
}

extension Client {
    var rightsProxy: RightsProxy { RightsProxy(connection) }

    /// AuthorizeRight on `context`; once the daemon prompts (`prompt`: that kind, or any), runs
    /// `respond` (a touch, a passcode). Returns the D-Bus error name it ended with, nil on success.
    func authorize(_ context: ContextProxy, _ identifier: String, prompt: String? = nil, _ respond: () async throws -> Void) async -> String? {
        await answering(context, prompt: prompt, respond) { try await context.authorizeRight(identifier, reason: "test", timeout: .seconds(60)) }
    }

    /// EvaluateRequirement on `context`, answered as ``authorize(_:_:prompt:_:)`` is.
    func evaluate(_ context: ContextProxy, _ requirement: String, options: [String: DBusValue] = [:], _ respond: () async throws -> Void) async -> String? {
        await answering(context, prompt: nil, respond) {
            try await context.evaluateRequirement(requirement, reason: "test", options: options, timeout: .seconds(60))
        }
    }

    private func answering(_ context: ContextProxy, prompt: String?, _ respond: () async throws -> Void,
                           _ call: @escaping @Sendable () async throws -> Void) async -> String? {
        do {
            let prompted = Inbox<String>()
            let subscription = try await connection.subscribe(
                DBusMatchRule(path: context.path, interface: LocalAuthBusNames.contextInterface, member: "Prompt")) { signal in
                prompted.put(signal.arguments.first?.string ?? "")
            }
            defer { connection.unsubscribe(subscription) }
            let task = Task { await errorName(call) }
            while true {
                let kind = try await prompted.next(within: .seconds(60))
                if prompt == nil || kind == prompt { break }
            }
            try await respond()
            return await task.value
        } catch {
            return "\(error)"
        }
    }
}
