// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import LocalAuthAPI
import LocalAuthDBus

/// The Rights interface and the Context's right methods as `localauth rights` calls them.
extension DaemonClient {
    /// The Rights object: `…/rights` under the Manager's path (dbus/org.localauth.LocalAuthentication1.Rights.xml).
    static let rightsPath = LocalAuthBusNames.managerPath + "/rights"
    static let rightsInterface = "org.localauth.LocalAuthentication1.Rights"

    /// Calls a method of the Rights object.
    @discardableResult
    func rights(_ member: String, _ arguments: [DBusValue] = []) async throws(CLIError) -> [DBusValue] {
        try await call(Self.rightsPath, Self.rightsInterface, member, arguments, timeout: timeout)
    }

    /// Calls one of the Context's right methods on `context`.
    @discardableResult
    func contextRight(_ context: String, _ member: String, _ arguments: [DBusValue], timeout: Duration? = nil) async throws(CLIError) -> [DBusValue] {
        try await call(context, LocalAuthBusNames.contextInterface, member, arguments, timeout: timeout ?? self.timeout)
    }

    /// `KeyProtection`: `tpm2` or `wrapping-key`.
    func keyProtection() async throws(CLIError) -> String {
        let connection = connection
        let value = try await translate {
            try await connection.property("KeyProtection", interface: Self.rightsInterface, path: Self.rightsPath,
                                          destination: LocalAuthBusNames.busName, timeout: .seconds(10))
        }
        guard let protection = value.string else { throw .failed("localauthd's KeyProtection is not a string.") }
        return protection
    }

    /// GetRight: the calling application's right `identifier` (RightNotFound otherwise).
    func right(_ identifier: String) async throws(CLIError) -> RightsCommand.Right {
        try RightsCommand.Right(try await rights("GetRight", [.string(identifier)]).first?.vardict ?? [:])
    }

    /// Creates a context and authorizes `right` on it like `evaluate` (prompts, the terminal, an
    /// agent, Ctrl-C); returns the context, which holds the authorization until this connection closes.
    @MainActor
    func authorize(_ right: RightsCommand.Right, reason: String, _ global: GlobalOptions) async throws(CLIError) -> String {
        Interrupts.handler = {
            Terminal.restoreEcho()
            exit(LocalAuthErrorName.userCancel.exitStatus)
        }
        defer { Interrupts.handler = nil }
        var evaluation = EvaluateCommand()
        evaluation.reason = reason
        evaluation.policy = right.takesPasscode ? .owner : .biometrics
        evaluation.usageDescription = "localauth rights uses a key or secret you saved at the command line."
        let context = try await createContext(evaluation.contextOptions)
        // Standard output may carry data: prompts go to standard error as text even with --json.
        var prompts = global
        prompts.json = false
        var noPasscode: [UInt8] = []
        let arguments: [DBusValue] = [.string(right.identifier), .string(reason)]
        let timeout = global.timeout ?? .seconds(86_400)
        if let failure = try await evaluation.authenticate(prompts, self, context, stdinPasscode: &noPasscode, request: { () async throws(CLIError) in
            try await contextRight(context, "AuthorizeRight", arguments, timeout: timeout)
        }) {
            throw failure
        }
        return context
    }

    private func call(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue], timeout: Duration) async throws(CLIError) -> [DBusValue] {
        let connection = connection
        return try await translate {
            try await connection.call(destination: LocalAuthBusNames.busName, path: path, interface: interface, member: member,
                                      arguments: arguments, timeout: timeout)
        }
    }
}
