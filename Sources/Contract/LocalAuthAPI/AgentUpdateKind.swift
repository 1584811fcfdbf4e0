// SPDX-License-Identifier: Apache-2.0
/// The `Kind` of an agent update (``LocalAuthAgentUpdateKey/kind``): the prompt the sheet now shows,
/// or `ready` after an answer was taken and the sheet goes on with a new cookie.
public enum AgentUpdateKind: RawRepresentable, Sendable, Hashable {
    case prompt(PromptKind)
    case ready

    public init?(rawValue: String) {
        if rawValue == "ready" {
            self = .ready
        } else if let kind = PromptKind(rawValue: rawValue) {
            self = .prompt(kind)
        } else {
            return nil
        }
    }

    public var rawValue: String {
        switch self {
        case .prompt(let kind): kind.rawValue
        case .ready: "ready"
        }
    }

    /// Every kind an update can carry, prompts first.
    public static let allCases: [AgentUpdateKind] = PromptKind.allCases.map(Self.prompt) + [.ready]
}
