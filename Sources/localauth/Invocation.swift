// SPDX-License-Identifier: Apache-2.0
/// A parsed command line for one command: its options, arguments and the global options.
struct Invocation: Sendable {
    let command: CommandSpec
    let global: GlobalOptions
    let values: [String: String]
    let flags: Set<String>
    let positionals: [String]

    var output: Output { Output(json: global.json) }

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { values[name] }
    func argument(_ index: Int) -> String? { index < positionals.count ? positionals[index] : nil }

    /// `--policy`: a name or 1…5; `owner` (2) when not given.
    func policy() throws(CLIError) -> Policy {
        guard let text = value("--policy") else { return .owner }
        guard let policy = Policy(text) else {
            var message = "--policy must be biometrics, owner, companion, biometrics-or-companion, wrist or 1 to 5, not “\(text)”."
            if let close = ArgumentParser.closest(to: text, in: Policy.allCases.map(\.name)) { message += " Did you mean “\(close)”?" }
            throw .usage(message)
        }
        return policy
    }

    /// A positional argument that must be one of `choices`.
    func choice(_ index: Int, of choices: [String], default fallback: String? = nil) throws(CLIError) -> String {
        guard let text = argument(index) ?? fallback else { throw .usage("Usage: \(command.usage)") }
        guard choices.contains(text) else {
            var message = "\(command.name): “\(text)” is not one of \(choices.joined(separator: ", "))."
            if let close = ArgumentParser.closest(to: text, in: choices) { message += " Did you mean “\(close)”?" }
            throw .usage(message)
        }
        return text
    }
}

/// Apple's LAPolicy values, with the names the CLI accepts.
enum Policy: UInt32, Sendable, CaseIterable {
    case biometrics = 1, owner, companion, biometricsOrCompanion, wrist

    init?(_ text: String) {
        if let number = UInt32(text), let policy = Policy(rawValue: number) {
            self = policy
            return
        }
        guard let policy = Policy.allCases.first(where: { $0.name == text }) else { return nil }
        self = policy
    }

    var name: String {
        switch self {
        case .biometrics: "biometrics"
        case .owner: "owner"
        case .companion: "companion"
        case .biometricsOrCompanion: "biometrics-or-companion"
        case .wrist: "wrist"
        }
    }

    /// Whether the passcode can satisfy it.
    var takesPasscode: Bool { self == .owner }
}
