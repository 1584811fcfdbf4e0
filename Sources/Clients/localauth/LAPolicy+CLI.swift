// SPDX-License-Identifier: Apache-2.0
import CommandLineKit
import LocalAuthAPI

/// `--policy`: the names the CLI accepts for Apple's policies, or their raw values 1…5.
extension LAPolicy: ExpressibleByArgument {
    init?(argument text: String) {
        if let number = Int(text), let policy = LAPolicy(rawValue: number) {
            self = policy
            return
        }
        guard let policy = LAPolicy.allCases.first(where: { $0.cliName == text }) else { return nil }
        self = policy
    }

    /// A name or 1…5.
    public static var argumentParser: ValueParser<LAPolicy> {
        ValueParser(completions: allCases.map(\.cliName)) { text, option throws(CommandLineError) in
            guard let policy = LAPolicy(argument: text) else {
                var message = "\(option) must be biometrics, owner, companion, biometrics-or-companion, wrist or 1 to 5, not “\(text)”."
                if let close = CommandLineParser.closest(to: text, in: allCases.map(\.cliName)) { message += " Did you mean “\(close)”?" }
                throw CommandLineError(message)
            }
            return policy
        }
    }

    /// The CLI's short name of the policy.
    var cliName: String {
        switch self {
        case .deviceOwnerAuthenticationWithBiometrics: "biometrics"
        case .deviceOwnerAuthentication: "owner"
        case .deviceOwnerAuthenticationWithCompanion: "companion"
        case .deviceOwnerAuthenticationWithBiometricsOrCompanion: "biometrics-or-companion"
        case .deviceOwnerAuthenticationWithWristDetection: "wrist"
        }
    }

    /// Whether the passcode can satisfy it.
    var takesPasscode: Bool { self == .deviceOwnerAuthentication }
}
