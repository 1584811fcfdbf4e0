// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthProxies

/// The Rights interface and the Context's right methods as `localauth rights` calls them, through
/// the typed proxies (each call checked against the contract), errors turned into `CLIError`s.
extension DaemonClient {
    var rightsProxy: RightsProxy { RightsProxy(connection, timeout: timeout) }

    /// GetRight: the calling application's right `identifier` (RightNotFound otherwise).
    func right(_ identifier: String) async throws(CLIError) -> RightsCommand.Right {
        let rights = rightsProxy
        return try RightsCommand.Right(try await translate { try await rights.right(identifier) })
    }

    /// SaveRight; `secret` empty for none (the message's copy is not wiped; the caller wipes its own).
    func saveRight(_ identifier: String, requirement: String, secret: [UInt8]) async throws(CLIError) -> RightsCommand.Right {
        let rights = rightsProxy
        return try RightsCommand.Right(try await translate { try await rights.saveRight(identifier, requirement: requirement, secret: secret) })
    }

    /// ListRights: (application, identifier) pairs, sorted.
    func listRights(allApplications: Bool) async throws(CLIError) -> [(application: String, identifier: String)] {
        let rights = rightsProxy
        return try await translate { try await rights.rights(allApplications: allApplications) }
    }

    func removeRight(_ identifier: String) async throws(CLIError) {
        let rights = rightsProxy
        try await translate { try await rights.removeRight(identifier) }
    }

    func removeAllRights() async throws(CLIError) {
        let rights = rightsProxy
        try await translate { try await rights.removeAllRights() }
    }

    func removeApplicationRight(application: String, identifier: String, passcode: [UInt8]) async throws(CLIError) {
        let (rights, argument) = (rightsProxy, DaemonClient.passcodeArgument(passcode))
        try await translate { try await rights.removeApplicationRight(application: application, identifier: identifier, passcode: argument) }
    }

    func encrypt(_ plaintext: [UInt8], for right: RightsCommand.Right) async throws(CLIError) -> [UInt8] {
        let rights = rightsProxy
        return try await translate {
            try await rights.encrypt(publicKey: right.publicKey, algorithm: RightsCommand.Algorithm.ecies, plaintext: plaintext)
        }
    }

    func verify(_ signature: [UInt8], of data: [UInt8], digest: Bool, by right: RightsCommand.Right) async throws(CLIError) -> Bool {
        let rights = rightsProxy
        return try await translate {
            try await rights.verify(publicKey: right.publicKey, algorithm: RightsCommand.Algorithm.signature(digest: digest), signedData: data, signature: signature)
        }
    }

    /// `KeyProtection`: `tpm2`, `wrapping-key`, or empty when localauthd could not open its vault.
    func keyProtection() async throws(CLIError) -> String {
        let rights = rightsProxy
        return try await translate { try await rights.keyProtection() }
    }

    /// Creates a context and authorizes `right` on it like `evaluate` (prompts, the terminal, an
    /// agent, Ctrl-C); returns the context, which holds the authorization until this connection closes.
    @MainActor
    func authorize(_ right: RightsCommand.Right, reason: String, _ global: GlobalOptions) async throws(CLIError) -> ContextProxy {
        Interrupts.handler = {
            Terminal.restoreEcho()
            exit(LocalAuthErrorName.userCancel.exitStatus)
        }
        defer { Interrupts.handler = nil }
        var evaluation = EvaluateCommand()
        evaluation.reason = reason
        evaluation.policy = right.takesPasscode ? .deviceOwnerAuthentication : .deviceOwnerAuthenticationWithBiometrics
        evaluation.usageDescription = "localauth rights uses a key or secret you saved at the command line."
        let context = contextProxy(try await createContext(evaluation.contextOptions))
        // Standard output may carry data: prompts go to standard error as text even with --json.
        var prompts = global
        prompts.json = false
        var noPasscode: [UInt8] = []
        let (identifier, timeout) = (right.identifier, global.timeout ?? .seconds(86_400))
        if let failure = try await evaluation.authenticate(prompts, self, context.proxy.path, stdinPasscode: &noPasscode, request: { () async throws(CLIError) in
            try await translate { try await context.authorizeRight(identifier, reason: reason, timeout: timeout) }
        }) {
            throw failure
        }
        return context
    }

    /// LoadSecret on a context that authorized the right; the caller wipes the result.
    func loadSecret(_ identifier: String, on context: ContextProxy) async throws(CLIError) -> [UInt8] {
        try await translate { try await context.loadSecret(identifier) }
    }

    func sign(_ data: [UInt8], digest: Bool, with identifier: String, on context: ContextProxy) async throws(CLIError) -> [UInt8] {
        try await translate { try await context.sign(identifier, algorithm: RightsCommand.Algorithm.signature(digest: digest), data: data) }
    }

    /// Decrypt on a context that authorized the right; the caller wipes the result.
    func decrypt(_ ciphertext: [UInt8], with identifier: String, on context: ContextProxy) async throws(CLIError) -> [UInt8] {
        try await translate { try await context.decrypt(identifier, algorithm: RightsCommand.Algorithm.ecies, ciphertext: ciphertext) }
    }
}
