// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies

/// `keyring`: the login password stored for the login keyring, which pam_localauth hands to the PAM
/// stack (PAM_AUTHTOK, for pam_gnome_keyring) after a fingerprint or face login.
@MainActor
enum KeyringCommand {
    struct Enroll: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["keyring", "enroll"],
            summary: "Store your login password so that a fingerprint or face login also unlocks the login keyring. "
                + "Asks it twice on a terminal; with --stdin reads two lines (the password, then again).",
            details: """
                A fingerprint or face login types no password, so the login keyring (GNOME Keyring) stays locked. \
                The password is checked with the PAM service localauth-keyring, then sealed by localauthd (TPM 2.0, or a \
                root-only wrapping key) and bound to your biometry: pam_localauth hands it to the login's PAM stack only \
                after a biometric match, never after a typed passcode or for a remote session. When you change your login \
                password the stored one stops working: the next fingerprint login removes it and says so; run this again. \
                Needs the passcode set and a finger or face enrolled.
                """,
            options: [.flag(\.stdin, "--stdin", "read the password from standard input, twice, one a line, instead of the terminal")])
        var stdin = false

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let state = try await client.userState()
            guard state.passcodeSet else { throw .authentication(.passcodeNotSet, "") }
            guard !state.enrollments.isEmpty else {
                throw .refused("No finger or face is enrolled, so nothing could release the password; enroll one first: localauth enroll fingerprint FINGER")
            }
            let user = try KeyringCommand.userName()
            global.output.note("""
                After a fingerprint or face login your login keyring stays locked, since no password was typed. \
                localauth can store your login password (sealed, bound to your biometry) and hand it to the keyring \
                after a biometric login.
                """)
            var entries = try await PasscodeInput.read(stdin: stdin, prompts: ["Login password of \(user): ", "Repeat the login password: "])
            defer { for index in entries.indices { Secret.wipe(&entries[index]) } }
            guard entries[0] == entries[1] else { throw .refused("The two passwords differ; nothing was stored.") }
            guard !entries[0].isEmpty else { throw .usage("The password is empty; nothing was stored.") }
            switch LoginPasswordCheck.check(user: user, password: entries[0]) {
            case .accepted:
                break
            case .refused:
                throw .refused("That is not the login password of \(user) (the PAM service \(LoginPasswordCheck.service) refused it); nothing was stored.")
            case .unavailable(let reason):
                throw .failed("""
                    The password could not be checked with the PAM service \(LoginPasswordCheck.service) (\(reason)); nothing was stored. \
                    Is /etc/pam.d/\(LoginPasswordCheck.service) installed?
                    """)
            }
            let password = DaemonClient.passcodeArgument(entries[0])
            let rights = KeyringCommand.rights(client)
            try await client.translate { try await rights.storeLoginPassword(password) }
            let sealing = await Sealing.read(client)
            global.output.result("""
                Login password stored\(sealing.clause). After a fingerprint or face \
                login, pam_localauth unlocks your login keyring with it. When you change your login password, run \
                localauth keyring enroll again.
                """, json: .object([("ok", true), ("action", "keyring-enroll")] + sealing.json))
            return ExitStatus.success
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["keyring", "status"], summary: "Whether a login password is stored for the login keyring, and whether biometry can release it.")

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let values = try await client.translate { try await client.managerProxy.userState() }
            let stored = values[LocalAuthUserStateKey.loginPasswordStored.rawValue]?.bool ?? false
            let state = UserState(values)
            let biometry = !state.enrollments.isEmpty
            let sealing = await Sealing.read(client)
            var lines = [stored
                ? "Login password: stored\(sealing.clause)."
                : "Login password: not stored (localauth keyring enroll stores it)."]
            if !biometry {
                lines.append("No finger or face is enrolled: nothing releases it.")
            } else if stored {
                lines.append("A fingerprint or face login unlocks the login keyring with it.")
            }
            global.output.result(lines.joined(separator: "\n"), json: .object(
                [("loginPasswordStored", .bool(stored)), ("biometryEnrolled", .bool(biometry))] + sealing.json))
            return ExitStatus.success
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["keyring", "remove"], summary: "Remove the stored login password: after a fingerprint or face login the keyring stays locked again.")

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let rights = KeyringCommand.rights(client)
            do throws(CLIError) {
                try await client.translate { try await rights.removeLoginPassword() }
            } catch .authentication(.rightNotFound, _, _) {
                throw .refused("No login password is stored.")
            }
            return AccountCommands.done(global, "Login password removed; the login keyring stays locked after a fingerprint or face login.",
                                        action: "keyring-remove")
        }
    }

    private static func rights(_ client: DaemonClient) -> RightsProxy { RightsProxy(client.connection, timeout: client.timeout) }

    /// How localauthd seals the stored password (the Rights object's KeyProtection), as enroll and
    /// status say it; nothing when the daemon does not say.
    private struct Sealing {
        /// "tpm2", "wrapping-key", or empty when localauthd could not open the vault of rights.
        let protection: String?

        static func read(_ client: DaemonClient) async -> Sealing {
            Sealing(protection: try? await KeyringCommand.rights(client).keyProtection())
        }

        /// ", sealed with …" for the text (nothing when unknown).
        var clause: String {
            switch protection {
            case nil: ""
            case "tpm2": ", sealed with the TPM 2.0"
            case "wrapping-key": ", sealed with localauthd's root-only wrapping key (no TPM 2.0)"
            case "": ", but localauthd cannot open the vault of rights now (journalctl -u localauthd says why)"
            case let other?: ", sealed (\(TerminalSafeText.line(other)))"
            }
        }

        /// The `keyProtection` member of --json, when known.
        var json: [(String, JSONValue)] {
            protection.map { [("keyProtection", .string($0))] } ?? []
        }
    }

    /// The caller's user name, as PAM knows it.
    private static func userName() throws(CLIError) -> String {
        var entry = passwd(), found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &found) == 0, found != nil, let name = entry.pw_name else {
            throw .failed("uid \(getuid()) has no passwd entry, so PAM cannot check its password.")
        }
        return String(cString: name)
    }
}
