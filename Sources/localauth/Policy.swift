// SPDX-License-Identifier: Apache-2.0
import CommandLineKit

/// Apple's LAPolicy values, with the names the CLI accepts.
enum Policy: UInt32, Sendable, CaseIterable, ExpressibleByArgument {
    case biometrics = 1, owner, companion, biometricsOrCompanion, wrist

    init?(_ text: String) {
        if let number = UInt32(text), let policy = Policy(rawValue: number) {
            self = policy
            return
        }
        guard let policy = Policy.allCases.first(where: { $0.name == text }) else { return nil }
        self = policy
    }

    /// A name or 1…5.
    static var argumentParser: ValueParser<Policy> {
        ValueParser(completions: allCases.map(\.name)) { text, option throws(CommandLineError) in
            guard let policy = Policy(text) else {
                var message = "\(option) must be biometrics, owner, companion, biometrics-or-companion, wrist or 1 to 5, not “\(text)”."
                if let close = CommandLineParser.closest(to: text, in: allCases.map(\.name)) { message += " Did you mean “\(close)”?" }
                throw CommandLineError(message)
            }
            return policy
        }
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
