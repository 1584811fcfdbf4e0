// SPDX-License-Identifier: Apache-2.0
/// A button of the authentication sheet the user sees during an evaluation. On Apple platforms the
/// system draws the sheet; here a session agent will, and until then the simulator presses them.
public enum SheetButton: String, Sendable, Hashable, CaseIterable {
    /// Ends the evaluation with userCancel.
    case cancel
    /// Policy 1 and 4 end with userFallback; policy 2 asks for the passcode. Hidden (refused) while
    /// the context's fallback title is empty.
    case fallback
}
