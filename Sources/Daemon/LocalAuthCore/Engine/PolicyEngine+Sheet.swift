// SPDX-License-Identifier: Apache-2.0
extension PolicyEngine {
    /// The user presses `button` on the sheet in front: that of the running evaluation that started
    /// first (later ones wait behind it for the sensors). Refused with notEvaluating when no
    /// evaluation runs, and with notSupported for a hidden fallback button; nothing changes then.
    public func press(_ button: SheetButton) throws(LocalAuthError) {
        guard let (id, record) = contexts.filter({ $0.value.evaluation != nil })
            .min(by: { $0.value.evaluation!.serial < $1.value.evaluation!.serial })
        else {
            throw LocalAuthError(.notEvaluating, "No evaluation is running, so no sheet is shown; start one first.")
        }
        switch button {
        case .cancel:
            handle(.ended(.userCancel), on: id)
        case .fallback:
            guard !record.options.localizedFallbackTitle.isEmpty else {
                throw LocalAuthError(.notSupported, "The sheet shows no fallback button: the context's fallback title is empty.")
            }
            handle(.fallback, on: id)
        }
        settle()
    }
}
