// SPDX-License-Identifier: Apache-2.0
/// One entry of `Backends`: an enabled backend as clients see it. The composition root hands the
/// engine one per configured backend, in `backends` order; the engine knows no backend by name.
public protocol ListedBackend: Sendable {
    /// Id, modality, availability and detail now.
    var status: BackendStatus { get }
}

extension BiometricBackend {
    public var status: BackendStatus {
        BackendStatus(id: id, modality: modality.rawValue, available: isAvailable, detail: detail)
    }
}
