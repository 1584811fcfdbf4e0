// SPDX-License-Identifier: Apache-2.0
extension Backend {
    /// The backend with every text its provider chose (id, version, state, description) as one
    /// terminal line (``TerminalSafeText/line(_:)``), for the human tables; JSON keeps the originals.
    var terminalSafe: Backend {
        Backend(id: TerminalSafeText.line(id), modality: TerminalSafeText.line(modality), available: available,
                kind: TerminalSafeText.line(kind), version: TerminalSafeText.line(version), state: TerminalSafeText.line(state),
                description: TerminalSafeText.line(description))
    }
}
