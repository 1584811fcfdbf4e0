// SPDX-License-Identifier: Apache-2.0
import CommandLineKit
import LocalAuthDBus

/// The commands that use a right's key and secret. Those of the private key and the secret
/// (`secret`, `sign`, `decrypt`) authorize the right first, like `evaluate`; those of the public
/// key (`public-key`, `encrypt`, `verify`) need no authorization. Data comes on standard input and
/// goes to standard output as bytes (--json changes only the errors and `verify`'s answer).
extension RightsCommand {
    /// Apple's SecKeyAlgorithm raw values (localauthd's wire names).
    enum Algorithm {
        /// ecdsaSignatureMessageX962SHA256: SHA-256 of the data, DER signature.
        static let signMessage = "algid:sign:ECDSA:message-X962:SHA256"
        /// ecdsaSignatureDigestX962SHA256: the data is the 32-byte digest.
        static let signDigest = "algid:sign:ECDSA:digest-X962:SHA256"
        /// eciesEncryptionStandardVariableIVX963SHA256AESGCM.
        static let ecies = "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV"

        static func signature(digest: Bool) -> String { digest ? signDigest : signMessage }
    }

    /// `--reason`, for the commands that authorize a right.
    nonisolated static func reasonOption<Command>(_ field: WritableKeyPath<Command, String?> & Sendable) -> Option<Command> {
        .value(field, "--reason", "TEXT", "why, shown to the user while the right is authorized, e.g. “sign the release” (default: names the right and the command)",
               parser: ValueParser.nonEmpty("--reason must not be empty.").map { $0 })
    }

    /// `--digest`, for sign and verify.
    nonisolated static func digestOption<Command>(_ field: WritableKeyPath<Command, Bool> & Sendable) -> Option<Command> {
        .flag(field, "--digest", "the input is a SHA-256 digest (32 bytes), not the data (ecdsaSignatureDigestX962SHA256)")
    }

    /// The reason shown when none is given; prompts read “Touch the fingerprint sensor to <reason>.”
    static func defaultReason(_ command: String, _ identifier: String) -> String {
        "use your right “\(identifier)” (localauth rights \(command))"
    }

    struct PublicKey: ParsableCommand {
        enum Format: Sendable { case pem, der, x963 }
        static let configuration = CommandConfiguration<Self>(
            words: ["rights", "public-key"], summary: "Write a right's public key: PEM SubjectPublicKeyInfo (for openssl), DER, or X9.63.",
            details: "Needs no authorization. For example: localauth rights public-key ID > key.pem; openssl dgst -sha256 -verify key.pem -signature sig < data",
            options: [
                .flag(\.format, "--pem", setting: .pem, "PEM SubjectPublicKeyInfo (the default)"),
                .flag(\.format, "--der", setting: .der, "DER SubjectPublicKeyInfo (binary)"),
                .flag(\.format, "--x963", setting: .x963, "the 65 bytes 04 ‖ X ‖ Y (binary, Apple's SecKeyCopyExternalRepresentation)"),
            ],
            arguments: [.argument(\.identifier, "ID", parser: identifierParser)])
        var identifier = ""
        var format = Format.pem

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            if format != .pem { try Bytes.requireRedirectedOutput("public-key", "a binary key") }
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let right = try await client.right(identifier)
            switch format {
            case .pem: try Bytes.write(Array((right.pem + "\n").utf8))
            case .der: try Bytes.write(right.subjectPublicKeyInfo)
            case .x963: try Bytes.write(right.publicKey)
            }
            return ExitStatus.success
        }
    }

    struct LoadSecret: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["rights", "secret"], summary: "Authorize a right, then write its secret to standard output.",
            details: "Refuses a terminal on standard output unless --force: redirect it to a file or a pipe.",
            options: [reasonOption(\.reason), .flag(\.force, "--force", "write the secret even when standard output is a terminal")],
            arguments: [.argument(\.identifier, "ID", parser: identifierParser)])
        var identifier = ""
        var reason: String?
        var force = false

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            try Bytes.requireRedirectedOutput("secret", "the secret", force: force)
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let right = try await client.right(identifier)
            guard right.hasSecret else {
                throw .refused("Right \(TerminalSafeText.line(identifier)) was saved without a secret; save it again with --secret-stdin to give it one.")
            }
            let context = try await client.authorize(right, reason: reason ?? defaultReason("secret", identifier), global)
            var secret = try await client.loadSecret(identifier, on: context)
            defer { Secret.wipe(&secret) }
            try Bytes.write(secret)
            return ExitStatus.success
        }
    }

    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["rights", "sign"], summary: "Authorize a right, then sign standard input with its key: a DER ECDSA P-256 SHA-256 signature on standard output.",
            details: "At most 65536 bytes of data. Check a signature with rights verify, or with openssl and the key of rights public-key.",
            options: [reasonOption(\.reason), digestOption(\.digest)],
            arguments: [.argument(\.identifier, "ID", parser: identifierParser)])
        var identifier = ""
        var reason: String?
        var digest = false

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            try Bytes.requireRedirectedInput("sign")
            try Bytes.requireRedirectedOutput("sign", "a binary signature")
            let data = try await Bytes.readStandardInput(limit: Bytes.maximumDataLength, what: "data")
            if digest, data.count != 32 { throw .usage("With --digest, standard input is a SHA-256 digest of 32 bytes, not \(data.count).") }
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let right = try await client.right(identifier)
            let context = try await client.authorize(right, reason: reason ?? defaultReason("sign", identifier), global)
            try Bytes.write(try await client.sign(data, digest: digest, with: identifier, on: context))
            return ExitStatus.success
        }
    }

    struct Decrypt: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["rights", "decrypt"], summary: "Authorize a right, then decrypt standard input (made by rights encrypt) to standard output.",
            details: "ECIES as Apple's eciesEncryptionStandardVariableIVX963SHA256AESGCM. Refuses a terminal on standard output unless --force.",
            options: [reasonOption(\.reason), .flag(\.force, "--force", "write the plaintext even when standard output is a terminal")],
            arguments: [.argument(\.identifier, "ID", parser: identifierParser)])
        var identifier = ""
        var reason: String?
        var force = false

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            try Bytes.requireRedirectedInput("decrypt")
            try Bytes.requireRedirectedOutput("decrypt", "the plaintext", force: force)
            let ciphertext = try await Bytes.readStandardInput(limit: Bytes.maximumDataLength, what: "ciphertext")
            // Checked before anyone is asked to authorize: an ephemeral public key (65 bytes), the data, a 16-byte tag.
            guard ciphertext.count >= 65 + 16, ciphertext[0] == 4 else {
                throw .usage("Standard input is not a ciphertext of localauth rights encrypt (an ephemeral P-256 public key, the data and a tag: at least 81 bytes).")
            }
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let right = try await client.right(identifier)
            let context = try await client.authorize(right, reason: reason ?? defaultReason("decrypt", identifier), global)
            var plaintext = try await client.decrypt(ciphertext, with: identifier, on: context)
            defer { Secret.wipe(&plaintext) }
            try Bytes.write(plaintext)
            return ExitStatus.success
        }
    }

    struct Encrypt: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["rights", "encrypt"], summary: "Encrypt standard input for a right's public key (no authorization); only rights decrypt opens it.",
            details: "At most 65536 bytes. ECIES as Apple's eciesEncryptionStandardVariableIVX963SHA256AESGCM: the ciphertext is binary.",
            arguments: [.argument(\.identifier, "ID", parser: identifierParser)])
        var identifier = ""

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            try Bytes.requireRedirectedInput("encrypt")
            try Bytes.requireRedirectedOutput("encrypt", "a binary ciphertext")
            var plaintext = try await Bytes.readStandardInput(limit: Bytes.maximumDataLength, what: "plaintext")
            defer { Secret.wipe(&plaintext) }
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let right = try await client.right(identifier)
            try Bytes.write(try await client.encrypt(plaintext, for: right))
            return ExitStatus.success
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["rights", "verify"], summary: "Check a signature file against standard input with a right's public key: exit 0 valid, 1 not valid.",
            details: "Needs no authorization. The signature is DER, as rights sign and openssl dgst -sign write it.",
            options: [digestOption(\.digest)],
            arguments: [.argument(\.identifier, "ID", parser: identifierParser), .argument(\.signatureFile, "SIGNATURE-FILE")])
        var identifier = ""
        var signatureFile = ""
        var digest = false

        /// Exit status of a signature that does not verify.
        static let invalid: Int32 = 1

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            try Bytes.requireRedirectedInput("verify")
            // A DER P-256 signature has at most 72 bytes; a little more is read to tell a wrong file.
            let signature = try await Bytes.readFile(signatureFile, limit: 1024, what: "signature")
            let data = try await Bytes.readStandardInput(limit: Bytes.maximumDataLength, what: "data")
            if digest, data.count != 32 { throw .usage("With --digest, standard input is a SHA-256 digest of 32 bytes, not \(data.count).") }
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let right = try await client.right(identifier)
            let valid = try await client.verify(signature, of: data, digest: digest, by: right)
            global.output.result(valid ? "Valid signature." : "Not a valid signature of this data by right \(TerminalSafeText.line(identifier)).",
                                 json: .object([("valid", .bool(valid))]))
            return valid ? ExitStatus.success : Self.invalid
        }
    }
}
