// SPDX-License-Identifier: Apache-2.0
/// What a running evaluation wants the user to see: the `kind` of the Context's `Prompt` signal
/// and the `Kind` of an agent update (``LocalAuthAgentUpdateKey/kind``).
public enum PromptKind: String, Sendable, Hashable, CaseIterable {
    /// Sensors are listening: touch the sensor or look at the screen.
    case biometry
    /// A sensor is busy with another evaluation (see the sensor sharing rule).
    case waiting
    /// A read could not be judged (too short, not centered, no face …); try again.
    case retry
    /// A face matched but was not looking at the screen.
    case attentionRequired = "attention-required"
    /// A read matched nothing; try again.
    case noMatch = "no-match"
    /// The passcode is wanted.
    case passcode
    /// A wrong passcode was submitted; try again.
    case passcodeWrong = "passcode-wrong"

    /// Asks for or answers about the passcode: never shown to an app that may not take it.
    public var isPasscodeRequest: Bool { self == .passcode || self == .passcodeWrong }
}
