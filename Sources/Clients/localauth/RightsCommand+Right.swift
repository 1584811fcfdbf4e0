// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import CSodium
import LocalAuthAPI
import LocalAuthDBus

extension RightsCommand {
    /// A right as the Rights interface describes it (`a{sv}`: GetRight's and SaveRight's reply),
    /// with the forms of its public key the commands print.
    struct Right: Sendable {
        let identifier: String
        /// The application identity that owns it (for this tool: the path of `localauth`).
        let application: String
        /// The requirement expression, e.g. `default` or `biometry or passcode`.
        let requirement: String
        let hasSecret: Bool
        /// X9.63: 04 ‖ X ‖ Y, 65 bytes.
        let publicKey: [UInt8]
        /// Unix seconds.
        let created: UInt64
        /// A biometry-current-set right whose enrollments changed since it was saved.
        let invalidated: Bool

        init(_ values: [String: DBusValue]) throws(CLIError) {
            func value(_ key: LocalAuthRightKey) -> DBusValue? { values[key.rawValue] }
            guard let identifier = value(.identifier)?.string, let application = value(.application)?.string,
                  let requirement = value(.requirement)?.string, let hasSecret = value(.hasSecret)?.bool,
                  let publicKey = value(.publicKey)?.bytes, publicKey.count == 65, publicKey[0] == 4,
                  let created = value(.created)?.uint64, let invalidated = value(.invalidated)?.bool
            else {
                throw .failed("localauthd described a right without the keys Identifier, Application, Requirement, HasSecret, PublicKey (65 bytes), Created and Invalidated: \(values.keys.sorted())")
            }
            (self.identifier, self.application, self.requirement, self.hasSecret) = (identifier, application, requirement, hasSecret)
            (self.publicKey, self.created, self.invalidated) = (publicKey, created, invalidated)
        }

        /// Whether the passcode can satisfy the requirement (so the terminal is read for it).
        var takesPasscode: Bool {
            RequirementTerm.terms(of: requirement).contains(where: \.acceptsPasscode)
        }

        /// The public key as SubjectPublicKeyInfo (DER), the form openssl and most tools read.
        var subjectPublicKeyInfo: [UInt8] { Self.p256SubjectPublicKeyInfoPrefix + publicKey }

        /// The SubjectPublicKeyInfo as PEM (`-----BEGIN PUBLIC KEY-----`), for `openssl dgst -verify`.
        var pem: String {
            let encoded = Self.base64(subjectPublicKeyInfo)
            var lines = ["-----BEGIN PUBLIC KEY-----"]
            var start = encoded.startIndex
            while start < encoded.endIndex {
                let end = encoded.index(start, offsetBy: 64, limitedBy: encoded.endIndex) ?? encoded.endIndex
                lines.append(String(encoded[start..<end]))
                start = end
            }
            return (lines + ["-----END PUBLIC KEY-----"]).joined(separator: "\n")
        }

        /// OpenSSH's form of fingerprint: `SHA256:` and the unpadded Base64 of the SHA-256 of the
        /// SubjectPublicKeyInfo (`openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64`).
        var fingerprint: String {
            var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
            let info = subjectPublicKeyInfo
            _ = crypto_hash_sha256(&digest, info, UInt64(info.count))
            return "SHA256:" + Self.base64(digest).filter { $0 != "=" }
        }

        /// `created` in UTC, e.g. `2026-12-06 02:41:00 UTC`.
        var createdText: String {
            var time = time_t(clamping: created)
            var parts = tm()
            gmtime_r(&time, &parts)
            var buffer = [CChar](repeating: 0, count: 32)
            let length = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S UTC", &parts)
            return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        var stateText: String {
            invalidated ? "invalidated: the enrolled biometry changed since it was saved (remove it and save it again)" : "valid"
        }

        /// What `show` prints; foreign text (the application path) made terminal-safe.
        var lines: [String] {
            ["identifier: " + TerminalSafeText.line(identifier),
             "application: " + TerminalSafeText.line(application),
             "requirement: " + TerminalSafeText.line(requirement),
             "secret: " + (hasSecret ? "stored" : "none"),
             "public key: P-256, " + fingerprint,
             "created: " + createdText,
             "state: " + stateText]
        }

        var json: JSONValue {
            .object([("identifier", .string(identifier)), ("application", .string(application)), ("requirement", .string(requirement)),
                     ("hasSecret", .bool(hasSecret)), ("publicKey", .string(Self.base64(publicKey))), ("fingerprint", .string(fingerprint)),
                     ("created", .int(Int(clamping: created))), ("invalidated", .bool(invalidated))])
        }

        /// SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING (0 unused bits) of 65 bytes }.
        static let p256SubjectPublicKeyInfoPrefix: [UInt8] = [
            0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
            0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
        ]

        /// Standard Base64 with padding (RFC 4648 §4), by libsodium.
        static func base64(_ bytes: [UInt8]) -> String {
            var text = [UInt8](repeating: 0, count: (bytes.count + 2) / 3 * 4 + 1)
            text.withUnsafeMutableBytes { buffer in
                _ = sodium_bin2base64(buffer.baseAddress!.assumingMemoryBound(to: CChar.self), buffer.count, bytes, bytes.count,
                                      sodium_base64_VARIANT_ORIGINAL)
            }
            return String(decoding: text.dropLast(), as: UTF8.self)
        }
    }
}
