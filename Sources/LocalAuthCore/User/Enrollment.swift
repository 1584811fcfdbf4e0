// SPDX-License-Identifier: Apache-2.0
/// One enrolled finger or face appearance.
public struct Enrollment: Codable, Sendable, Hashable {
    public var modality: BiometricModality
    /// An fprintd finger name (`right-index-finger`) or a face appearance (`primary`, `alternate`).
    public var label: String

    public init(modality: BiometricModality, label: String) {
        self.modality = modality
        self.label = label
    }
}
