// SPDX-License-Identifier: Apache-2.0
import CommandLineKit
import LocalAuthAPI
import LocalAuthDBus

/// `status`, `can-evaluate` and `enrollments`: read-only commands that count nothing.
@MainActor
enum StatusCommands {
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["status"], summary: "Show backends, biometry type, enrollments, passcode, require-attention and lockouts.")

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let version = try await client.managerProperty("Version").string ?? "?"
            let backends = try await client.backends()
            let state = try await client.userState()
            let context = try await client.createContext()
            let biometrics = try await check(.deviceOwnerAuthenticationWithBiometrics, on: context, client)
            let owner = try await check(.deviceOwnerAuthentication, on: context, client)
            let biometryType = LABiometryType(wireValue: try await client.contextProperty(context, "BiometryType").uint32 ?? 0)
            try await client.context(context) { try await $0.invalidate() }
            // nil from a localauthd without rights.
            let keyProtection = try? await client.keyProtection()

            var lines = ["localauthd \(version) on \(global.busDescription)"]
            lines.append("backends: " + backends.map { listed in
                let backend = listed.terminalSafe
                guard backend.modality != "passcode" else { return backend.id }
                let simulator = backend.kind == "simulator" ? "simulator, " : ""
                guard backend.kind == "provider" else { return "\(backend.id) (\(simulator)\(backend.available ? "available" : "not available"))" }
                let version = backend.version.isEmpty ? "" : " " + backend.version
                return "\(backend.id) (provider\(version), \(backend.available ? "available" : "not available: " + backend.state))"
            }.joined(separator: ", "))
            let simulated = backends.contains { $0.kind == "simulator" && $0.modality == biometryType.modality?.rawValue }
            lines.append("biometry type: \(biometryType.words(simulated: simulated))")
            if biometryType == .faceID {
                lines.append("Face ID for apps: each app is asked once in your session agent (localauth agent or the desktop sheet), "
                             + "and allowing takes your passcode; with no agent running, an app you have not allowed is not offered face "
                             + "(see localauth apps)")
            }
            lines.append("enrollments: " + (state.enrollments.isEmpty ? "none" : state.enrollments.map { TerminalSafeText.line("\($0.modality) \($0.label)") }.joined(separator: ", ")))
            lines.append("passcode: \(state.passcodeSet ? "set" : "not set")")
            lines.append("require attention: \(state.requireAttention ? "on" : "off")")
            lines += state.lockoutLines.isEmpty ? ["lockout: none"] : state.lockoutLines
            if let keyProtection { lines.append("keys of rights: " + Self.keyProtectionWords(keyProtection)) }
            lines.append("can evaluate biometrics: " + biometrics.words)
            lines.append("can evaluate owner: " + owner.words)
            global.output.result(lines.joined(separator: "\n"), json: .object([
                ("version", .string(version)),
                ("backends", .array(backends.map(\.json))),
                ("biometryType", .string(biometryType.cliName)),
                ("user", state.json),
                ("canEvaluate", .object([("biometrics", biometrics.json), ("owner", owner.json)])),
            ] + (keyProtection.map { [("keyProtection", .string($0))] } ?? [])))
            return ExitStatus.success
        }

        /// How the keys and secrets of rights are sealed (the Rights object's KeyProtection).
        static func keyProtectionWords(_ protection: String) -> String {
            switch protection {
            case "tpm2": "sealed with the TPM 2.0"
            case "wrapping-key": "sealed with a root-only wrapping key (no TPM)"
            case "": "not available: localauthd could not open its vault (see its log)"
            default: TerminalSafeText.line(protection)
            }
        }
    }

    struct Backends: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["backends"], summary: "List the enabled backends: id, modality, kind (built-in, simulator or provider), provider version, state.",
            details: "A provider is a sensor in a separate process; its state says why it is not available (down: …, refused: …). A simulator has no sensor behind it: `localauth sim` plays its inputs.")

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let backends = try await client.backends()
            let rows = [["ID", "MODALITY", "KIND", "VERSION", "STATE", "DESCRIPTION"]]
                + backends.map(\.terminalSafe).map { [$0.id, $0.modality, $0.kind, $0.version.isEmpty ? "-" : $0.version, $0.state, $0.description] }
            let widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
            let human = rows.map { row in
                (0..<5).map { row[$0].padding(to: widths[$0]) }.joined(separator: "  ") + "  " + row[5]
            }.joined(separator: "\n")
            global.output.result(human, json: .object([("backends", .array(backends.map(\.json)))]))
            return ExitStatus.success
        }
    }

    struct CanEvaluate: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(
            words: ["can-evaluate"], summary: "Check whether a policy could be evaluated now; the exit status says yes (0) or why not.",
            details: "Counts nothing and asks for nothing.", options: [CommandTable.policyOption(\.policy)])
        var policy = LAPolicy.deviceOwnerAuthentication

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let context = try await client.createContext()
            let answer = try await check(policy, on: context, client)
            let biometryType = LABiometryType(wireValue: try await client.contextProperty(context, "BiometryType").uint32 ?? 0)
            try await client.context(context) { try await $0.invalidate() }
            global.output.result("\(policy.cliName): \(answer.words)", json: .object([
                ("policy", .string(policy.cliName)), ("value", .int(policy.rawValue)),
                ("biometryType", .string(biometryType.cliName)), ("result", answer.json),
            ]))
            return answer.error?.exitStatus ?? ExitStatus.success
        }
    }

    struct Enrollments: ParsableCommand {
        static let configuration = CommandConfiguration<Self>(words: ["enrollments"], summary: "List your enrollments.")

        func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
            let client = try await DaemonClient.connect(global)
            defer { client.close() }
            let state = try await client.userState()
            let human = state.enrollments.isEmpty
                ? "No enrollments. Enroll one with: localauth enroll fingerprint right-index-finger"
                : state.enrollments.map { TerminalSafeText.line($0.modality) + "\t" + TerminalSafeText.line($0.label) }.joined(separator: "\n")
            global.output.result(human, json: .object([("enrollments", .array(state.enrollments.map(\.json)))]))
            return ExitStatus.success
        }
    }

    /// CanEvaluatePolicy: nil error when it could be evaluated, else the LAError it would fail with.
    static func check(_ policy: LAPolicy, on context: String, _ client: DaemonClient) async throws(CLIError) -> Answer {
        do throws(CLIError) {
            try await client.context(context) { try await $0.canEvaluatePolicy(policy) }
            return Answer(error: nil)
        } catch {
            guard case .authentication = error else { throw error }
            return Answer(error: error)
        }
    }

    /// The outcome of a check.
    struct Answer {
        /// Always an `.authentication` error when set.
        let error: CLIError?

        var words: String { error.map { "no: " + $0.message } ?? "yes" }
        var json: JSONValue {
            guard let error else { return .object([("canEvaluate", true)]) }
            return .object([("canEvaluate", false), ("error", error.json)])
        }
    }
}

extension String {
    /// The string followed by spaces up to `width` characters.
    fileprivate func padding(to width: Int) -> String {
        self + String(repeating: " ", count: max(width - count, 0))
    }
}
