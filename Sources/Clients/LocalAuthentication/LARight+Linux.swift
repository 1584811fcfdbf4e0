// SPDX-License-Identifier: Apache-2.0
import Foundation

/// What Apple's system UI does for a right's authorization, done by the app on Linux (as for
/// `LAContext`, see `LAContext+Linux.swift`): only a daemon in headless mode
/// (`app_passcode_entry = true`) sends an ordinary app the passcode prompts; normally the
/// session's agent asks the user and the app needs neither.
extension LARight {
    /// The daemon's prompts for this right's authorizations, from now on. A plain right makes a
    /// new context at `deauthorize()`, which ends this stream: read `prompts` again after it.
    public var prompts: AsyncStream<LAPrompt> {
        session.prompts()
    }

    /// Asked for the passcode when an authorization that accepts it wants it (a `default`
    /// requirement, or biometry with the passcode fallback). Kept across `deauthorize()`.
    public var passcodeProvider: LAPasscodeProvider? {
        get { session.state.withLock { $0.passcodeProvider } }
        set { session.state.withLock { $0.passcodeProvider = newValue } }
    }
}
