// SPDX-License-Identifier: Apache-2.0
import Foundation
@_spi(Testing) import LocalAuthentication
import LocalAuthTestSupport

/// Everything a context prompts, collected so a test can await the next one (bounded).
func promptsOf(_ context: LAContext) -> Inbox<LAPrompt> {
    let inbox = Inbox<LAPrompt>()
    let stream = context.prompts
    Task { for await prompt in stream { inbox.put(prompt) } }
    return inbox
}

/// Starts an evaluation in the callback form; the inbox gets nil on success, else the code.
func evaluate(_ context: LAContext, _ policy: LAPolicy, reason: String = "run the test") -> Inbox<LAError.Code?> {
    let outcome = Inbox<LAError.Code?>()
    context.evaluatePolicy(policy, localizedReason: reason) { success, error in
        outcome.put(success ? nil : (error as? LAError)?.code ?? .systemCancel)
    }
    return outcome
}

/// canEvaluatePolicy's error code, nil when it returned true.
func check(_ context: LAContext, _ policy: LAPolicy) -> Int? {
    var error: NSError?
    let ok = context.canEvaluatePolicy(policy, error: &error)
    return ok ? nil : error?.code
}
