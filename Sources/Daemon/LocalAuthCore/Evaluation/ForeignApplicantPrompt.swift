// SPDX-License-Identifier: Apache-2.0
/// The prompts another user acting as this one (a foreign applicant: `su`, another user's screen
/// locker) is shown: they never say which sensors the user has enrolled or which of them read
/// something, so the applicant learns nothing of the user's enrollments.
enum ForeignApplicantPrompt {
    /// `prompt` with every mention of a sensor replaced by generic text. Structured detail is
    /// dropped: it lists sensors, and these contexts are never shown by an agent.
    static func hiding(_ prompt: Prompt, options: ContextOptions, reason: String) -> Prompt {
        // How to stop depends only on where the prompt is read, not on who takes the passcode.
        let stop = PromptText.stop(options, PromptText.Reader(options, appPasscodeEntry: false))
        switch prompt.kind {
        case .biometry:
            return Prompt(.biometry, "Use the biometric sensor to \(reason). \(stop)")
        case .waiting:
            return Prompt(.waiting, "Waiting for a sensor that another request is using. \(stop)")
        case .noMatch:
            return Prompt(.noMatch, "Not recognized; try again. \(stop)")
        case .retry, .attentionRequired:
            return Prompt(.retry, "Not read; try again. \(stop)")
        case .passcode, .passcodeWrong:
            return Prompt(prompt.kind, prompt.message)
        }
    }
}
