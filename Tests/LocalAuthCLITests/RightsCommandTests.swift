// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// `localauth rights`: each command against the real daemon on a private bus, data through files
/// as a script passes it (`< data > signature`), signatures checked by openssl, the private key
/// used after a simulated touch, and the refusals with their messages and exit statuses.
@Suite("localauth rights", .timeLimit(.minutes(3)))
struct RightsCommandTests {
    typealias CLI = CommandLineTool
    static let configuration = CLI.daemonConfiguration + "key_protection = wrapping-key\n"
    static let rightsPath = "/org/localauth/LocalAuthentication1/rights"
    static let rightsInterface = "org.localauth.LocalAuthentication1.Rights"

    /// `localauth --address BUS arguments… < input > output`, through the shell (standard input
    /// /dev/null without `input`; standard output captured as text without `output`).
    static func run(_ bus: PrivateBus, _ arguments: [String], input: String? = nil, output: String? = nil) async throws -> ExternalTool.Result {
        let redirections = "exec \"$@\"" + (input.map { _ in " <\"$RIGHTS_IN\"" } ?? "") + (output.map { _ in " >\"$RIGHTS_OUT\"" } ?? "")
        return try await ExternalTool.run("sh", ["-c", redirections, "sh", CLI.binary, "--address", bus.address] + arguments,
                                          environment: ["RIGHTS_IN": input ?? "", "RIGHTS_OUT": output ?? ""])
    }

    /// Queues one touch of the enrolled finger, which the next authorization takes.
    static func touch(_ bus: PrivateBus) async throws {
        #expect(try await CLI.run(bus, ["sim", "touch", "right-index-finger"]).status == 0)
    }

    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    @Test func saveShowListAndRemove() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            let empty = try await CLI.run(bus, ["rights", "list"])
            #expect(empty.status == 0 && empty.stdout.contains("localauth has no rights saved"), "\(empty)")

            let saved = try await CLI.run(bus, ["rights", "save", "deploy-key", "--requirement", "biometry or passcode"])
            #expect(saved.status == 0 && saved.stdout.contains("requirement: biometry or passcode") && saved.stdout.contains("secret: none"), "\(saved)")
            let withSecret = try await CLI.run(bus, ["rights", "save", "api-token", "--secret-stdin"], stdin: "s3cr3t-token")
            #expect(withSecret.status == 0 && withSecret.stdout.contains("secret: stored") && !withSecret.stdout.contains("s3cr3t"), "\(withSecret)")

            let show = try await CLI.run(bus, ["rights", "show", "api-token", "--json"])
            #expect(show.status == 0)
            let right = Self.json(show.stdout)
            #expect(right["identifier"] as? String == "api-token" && right["requirement"] as? String == "default")
            #expect(right["hasSecret"] as? Bool == true && right["invalidated"] as? Bool == false)
            #expect((right["application"] as? String)?.hasSuffix("/localauth") == true, "\(right)")
            #expect((right["fingerprint"] as? String)?.hasPrefix("SHA256:") == true)
            let created = try #require(right["created"] as? Int)
            #expect(abs(created - Int(Date().timeIntervalSince1970)) < 600)
            let human = try await CLI.run(bus, ["rights", "show", "deploy-key"])
            #expect(human.stdout.contains("state: valid") && human.stdout.contains("public key: P-256, SHA256:"), "\(human)")

            let list = try await CLI.run(bus, ["rights", "list", "--json"])
            let identifiers = (Self.json(list.stdout)["rights"] as? [[String: Any]] ?? []).compactMap { $0["identifier"] as? String }
            #expect(identifiers.sorted() == ["api-token", "deploy-key"], "\(list)")

            // Saving again replaces: a new key.
            let before = right["fingerprint"] as? String
            _ = try await CLI.run(bus, ["rights", "save", "api-token"])
            let replaced = Self.json(try await CLI.run(bus, ["rights", "show", "api-token", "--json"]).stdout)
            #expect(replaced["fingerprint"] as? String != before && replaced["hasSecret"] as? Bool == false)

            #expect(try await CLI.run(bus, ["rights", "remove", "deploy-key"]).status == 0)
            let gone = try await CLI.run(bus, ["rights", "show", "deploy-key"])
            #expect(gone.status == 66 && gone.stderr.contains("localauth rights list"), "\(gone)")
            #expect(try await CLI.run(bus, ["rights", "remove", "--all-mine"]).status == 0)
            #expect(try await CLI.run(bus, ["rights", "list"]).stdout.contains("localauth has no rights saved"))
        }
    }

    @Test func signatureVerifiesWithOpenSSLAndTheExportedKey() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            let files = try ScratchDirectory(prefix: "rights-cli")
            try files.write(Array("release 1.2.3\n".utf8), to: "data")
            #expect(try await Self.run(bus, ["rights", "save", "signer"]).status == 0)
            let pem = try await Self.run(bus, ["rights", "public-key", "signer"], output: files.path("key.pem"))
            #expect(pem.status == 0, "\(pem)")
            #expect(String(decoding: try files.read("key.pem"), as: UTF8.self).hasPrefix("-----BEGIN PUBLIC KEY-----\n"))

            try await Self.touch(bus)
            let signed = try await Self.run(bus, ["rights", "sign", "signer", "--reason", "sign the release"], input: files.path("data"), output: files.path("sig"))
            #expect(signed.status == 0, "\(signed)")
            let openssl = try await ExternalTool.run("openssl", ["dgst", "-sha256", "-verify", files.path("key.pem"), "-signature", files.path("sig"), files.path("data")])
            #expect(openssl.status == 0 && openssl.stdout.contains("Verified OK"), "\(openssl)")

            // rights verify agrees, and says no to other data (exit 1).
            let valid = try await Self.run(bus, ["rights", "verify", "signer", files.path("sig")], input: files.path("data"))
            #expect(valid.status == 0 && valid.stdout == "Valid signature.\n", "\(valid)")
            try files.write(Array("release 6.6.6\n".utf8), to: "other")
            let invalid = try await Self.run(bus, ["rights", "verify", "signer", files.path("sig"), "--json"], input: files.path("other"))
            #expect(invalid.status == 1 && invalid.stdout == #"{"valid":false}"# + "\n", "\(invalid)")

            // The fingerprint is the SHA-256 of the DER SubjectPublicKeyInfo, as openssl computes it.
            let der = try await Self.run(bus, ["rights", "public-key", "signer", "--der"], output: files.path("key.der"))
            #expect(der.status == 0)
            let x963 = try await Self.run(bus, ["rights", "public-key", "signer", "--x963"], output: files.path("key.x963"))
            let (derBytes, x963Bytes) = (try files.read("key.der"), try files.read("key.x963"))
            #expect(x963.status == 0 && x963Bytes.count == 65 && x963Bytes[0] == 4 && Array(derBytes.suffix(65)) == x963Bytes)
            let digest = try await ExternalTool.run("sh", ["-c", "openssl dgst -sha256 -binary \"$0\" | base64", files.path("key.der")])
            let fingerprint = Self.json(try await CLI.run(bus, ["rights", "show", "signer", "--json"]).stdout)["fingerprint"] as? String
            #expect(fingerprint == "SHA256:" + digest.stdout.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "=", with: ""))

            // A pre-computed digest signs the same way.
            let digestFile = try await ExternalTool.run("sh", ["-c", "openssl dgst -sha256 -binary \"$0\" > \"$1\"", files.path("data"), files.path("digest")])
            #expect(digestFile.status == 0)
            try await Self.touch(bus)
            let signedDigest = try await Self.run(bus, ["rights", "sign", "signer", "--digest"], input: files.path("digest"), output: files.path("sig2"))
            #expect(signedDigest.status == 0, "\(signedDigest)")
            let again = try await ExternalTool.run("openssl", ["dgst", "-sha256", "-verify", files.path("key.pem"), "-signature", files.path("sig2"), files.path("data")])
            #expect(again.status == 0, "\(again)")
        }
    }

    @Test func encryptThenDecryptAfterATouchAndLoadTheSecret() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            let files = try ScratchDirectory(prefix: "rights-cli")
            let plaintext = Array("the vault's combination: 12-34-56\n".utf8) + [0, 255, 10]
            try files.write(plaintext, to: "plain")
            try files.write(Array("hunter2\n".utf8), to: "secret")
            #expect(try await Self.run(bus, ["rights", "save", "vault", "--secret-stdin"], input: files.path("secret")).status == 0)

            let encrypted = try await Self.run(bus, ["rights", "encrypt", "vault"], input: files.path("plain"), output: files.path("cipher"))
            #expect(encrypted.status == 0, "\(encrypted)")
            // Ephemeral public key (65) ‖ AES-GCM ciphertext ‖ tag (16).
            #expect(try files.read("cipher").count == 65 + plaintext.count + 16)

            try await Self.touch(bus)
            let decrypted = try await Self.run(bus, ["rights", "decrypt", "vault"], input: files.path("cipher"), output: files.path("opened"))
            #expect(decrypted.status == 0, "\(decrypted)")
            #expect(try files.read("opened") == plaintext)

            try await Self.touch(bus)
            let secret = try await Self.run(bus, ["rights", "secret", "vault", "--reason", "open the vault"], output: files.path("loaded"))
            #expect(secret.status == 0 && !secret.stderr.contains("hunter2"), "\(secret)")
            #expect(try files.read("loaded") == Array("hunter2\n".utf8))

            // A wrong finger for a biometry right: no secret, authenticationFailed's status after the daemon's tries.
            #expect(try await Self.run(bus, ["rights", "save", "fingers-only", "--requirement", "biometry", "--secret-stdin"],
                                       input: files.path("secret")).status == 0)
            for _ in 1...3 { _ = try await CLI.run(bus, ["sim", "touch", "left-thumb"]) }
            let refused = try await Self.run(bus, ["rights", "secret", "fingers-only"], output: files.path("none"))
            let leaked = try files.read("none")
            #expect(refused.status == 1 && leaked.isEmpty, "\(refused)")
        }
    }

    @Test func badInputIsRefusedWithWhatToDo() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let notSet = try await CLI.run(bus, ["rights", "save", "early"])
            #expect(notSet.status == 5 && notSet.stderr.contains("localauth passcode set"), "\(notSet)")
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            let files = try ScratchDirectory(prefix: "rights-cli")

            let long = try await CLI.run(bus, ["rights", "save", String(repeating: "x", count: 129)])
            #expect(long.status == 64 && long.stderr.contains("1 to 128 bytes"), "\(long)")
            let control = try await CLI.run(bus, ["rights", "show", "bad\u{1B}[2Jname"])
            #expect(control.status == 64 && control.stderr.contains("\\x1b") && !control.stderr.contains("\u{1B}"), "\(control)")
            let grammar = try await CLI.run(bus, ["rights", "save", "x", "--requirement", "biometry or face"])
            #expect(grammar.status == 65 && grammar.stderr.contains("biometry-current-set"), "\(grammar)")
            #expect(try await CLI.run(bus, ["rights", "remove"]).status == 64)
            #expect(try await CLI.run(bus, ["rights", "remove", "x", "--all-mine"]).status == 64)
            #expect(try await CLI.run(bus, ["rights", "public-key", "x", "--pem", "--bogus"]).status == 64)
            let missing = try await CLI.run(bus, ["rights", "show", "nothing-here", "--json"])
            #expect(missing.status == 66 && missing.stderr.contains(#""exitStatus":66"#), "\(missing)")

            #expect(try await CLI.run(bus, ["rights", "save", "plain"]).status == 0)
            let noSecret = try await Self.run(bus, ["rights", "secret", "plain"], output: files.path("out"))
            #expect(noSecret.status == 65 && noSecret.stderr.contains("saved without a secret"), "\(noSecret)")
            try files.write([1, 2, 3], to: "short")
            let shortDigest = try await Self.run(bus, ["rights", "sign", "plain", "--digest"], input: files.path("short"), output: files.path("out"))
            #expect(shortDigest.status == 64 && shortDigest.stderr.contains("32 bytes"), "\(shortDigest)")
            try files.write([UInt8](repeating: 7, count: 65_537), to: "big")
            let tooLong = try await Self.run(bus, ["rights", "encrypt", "plain"], input: files.path("big"), output: files.path("out"))
            #expect(tooLong.status == 64 && tooLong.stderr.contains("65536"), "\(tooLong)")
            let noFile = try await Self.run(bus, ["rights", "verify", "plain", files.path("absent")], input: files.path("short"))
            #expect(noFile.status == 64 && noFile.stderr.contains("No such file"), "\(noFile)")
            try files.write([0x30, 0x01, 0x00], to: "garbage")
            let garbage = try await Self.run(bus, ["rights", "decrypt", "plain"], input: files.path("garbage"), output: files.path("out"))
            #expect(garbage.status == 64 && garbage.stderr.contains("not a ciphertext"), "\(garbage)")
        }
    }

    @Test func allListsEveryApplicationAndRemoveAppTakesThePasscode() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            #expect(try await CLI.run(bus, ["rights", "save", "mine"]).status == 0)
            // Another application: this test process, through the bus.
            let reply = try await client.connection.call(destination: "org.localauth.LocalAuthentication1", path: Self.rightsPath, interface: Self.rightsInterface,
                                                        member: "SaveRight", arguments: [.string("theirs"), .string("default"), .bytes([]), .vardict([:])])
            let application = try #require(reply.first?.vardict?["Application"]?.string)

            let own = try await CLI.run(bus, ["rights", "list"])
            #expect(own.stdout.contains("mine") && !own.stdout.contains("theirs"), "\(own)")
            let all = Self.json(try await CLI.run(bus, ["rights", "list", "--all", "--json"]).stdout)["rights"] as? [[String: String]] ?? []
            #expect(all.contains { $0["identifier"] == "theirs" && $0["application"] == application }, "\(all)")
            #expect(all.contains { $0["identifier"] == "mine" && $0["application"]?.hasSuffix("/localauth") == true }, "\(all)")
            // Without --app the other application's right is not ours to see.
            #expect(try await CLI.run(bus, ["rights", "show", "theirs"]).status == 66)

            let wrong = try await CLI.run(bus, ["rights", "remove", "--app", application, "theirs", "--stdin"], stdin: "not-the-passcode\n")
            #expect(wrong.status == 1, "\(wrong)")
            #expect(try await client.userState()["PasscodeFailures"] == .uint32(1))
            let removed = try await CLI.run(bus, ["rights", "remove", "--app", application, "theirs", "--stdin"], stdin: "4711-secret\n")
            #expect(removed.status == 0, "\(removed)")
            let after = try await CLI.run(bus, ["rights", "list", "--all"])
            #expect(!after.stdout.contains("theirs") && after.stdout.contains("mine"), "\(after)")
        }
    }

    @Test func aBiometryCurrentSetRightIsInvalidatedByANewEnrollment() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            let files = try ScratchDirectory(prefix: "rights-cli")
            try files.write(Array("payload".utf8), to: "data")
            #expect(try await CLI.run(bus, ["rights", "save", "current", "--requirement", "biometry-current-set"]).status == 0)
            #expect(try await CLI.run(bus, ["rights", "show", "current"]).stdout.contains("state: valid\n"))
            try await client.managerProxy.enroll(modality: "fingerprint", label: "left-thumb", passcode: .string("4711-secret"))

            let shown = try await CLI.run(bus, ["rights", "show", "current"])
            #expect(shown.status == 0 && shown.stdout.contains("state: invalidated: the enrolled biometry changed"), "\(shown)")
            let listed = Self.json(try await CLI.run(bus, ["rights", "list", "--json"]).stdout)["rights"] as? [[String: Any]] ?? []
            #expect(listed.first?["invalidated"] as? Bool == true, "\(listed)")
            let signed = try await Self.run(bus, ["rights", "sign", "current"], input: files.path("data"), output: files.path("sig"))
            #expect(signed.status == 14 && signed.stderr.contains("Remove it and save it again"), "\(signed)")
            // The public key still works: it is only the private key that needs the requirement.
            #expect(try await Self.run(bus, ["rights", "encrypt", "current"], input: files.path("data"), output: files.path("enc")).status == 0)
        }
    }

    @Test func protectionAndStatusSayHowKeysAreSealed() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let protection = try await CLI.run(bus, ["rights", "protection"])
            #expect(protection.status == 0 && protection.stdout.hasPrefix("wrapping-key: "), "\(protection)")
            #expect(Self.json(try await CLI.run(bus, ["rights", "protection", "--json"]).stdout)["keyProtection"] as? String == "wrapping-key")
            let status = try await CLI.run(bus, ["status"])
            #expect(status.stdout.contains("keys of rights: sealed with a root-only wrapping key (no TPM)\n"), "\(status)")
        }
    }

    /// `localauth rights …` on a pseudo-terminal (``EvaluateCommandTests/onTerminal(_:_:_:)``): the
    /// passcode typed while the sensor listens authorizes; a secret goes to a terminal only with --force.
    @Test func onATerminalThePasscodeIsTypedAndTheSecretNeedsForce() async throws {
        try await withDaemon(configuration: Self.configuration) { _, bus in
            let client = try await Client(bus)
            try await client.setUp(fingers: ["right-index-finger"])
            let saved = try await EvaluateCommandTests.onTerminal(bus, [("Secret of right", "typed-token\\n")], ["rights", "save", "note", "--secret-stdin"])
            #expect(saved.status == 0 && saved.output.contains("secret: stored") && !saved.output.contains("typed-token"), "\(saved.output)")

            let refused = try await EvaluateCommandTests.onTerminal(bus, [], ["rights", "secret", "note"])
            #expect(refused.status == 64 && refused.output.contains("add --force"), "\(refused.output)")
            let binary = try await EvaluateCommandTests.onTerminal(bus, [], ["rights", "public-key", "note", "--der"])
            #expect(binary.status == 64 && binary.output.contains("redirect it"), "\(binary.output)")

            let shown = try await EvaluateCommandTests.onTerminal(bus, [("it is not shown", "wrong-guess\\n"), ("Wrong passcode", "4711-secret\\n")],
                                             ["rights", "secret", "note", "--force", "--reason", "read the note"])
            #expect(shown.status == 0, "\(shown.output)")
            #expect(shown.output.contains("Touch the fingerprint sensor to read the note") && shown.output.hasSuffix("typed-token"), "\(shown.output)")
            #expect(!shown.output.contains("4711-secret") && !shown.output.contains("wrong-guess"), "\(shown.output)")
        }
    }

    @Test func everyRightsCommandHasHelp() async throws {
        for command in ["list", "save", "show", "public-key", "secret", "sign", "decrypt", "encrypt", "verify", "remove", "protection"] {
            let help = try await CLI.run(nil, ["rights", command, "--help"])
            #expect(help.status == 0 && help.stdout.hasPrefix("Usage: localauth rights \(command)"), "\(command): \(help)")
        }
        let group = try await CLI.run(nil, ["help", "rights"])
        #expect(group.status == 0 && group.stdout.contains("rights sign ID"), "\(group)")
    }
}
