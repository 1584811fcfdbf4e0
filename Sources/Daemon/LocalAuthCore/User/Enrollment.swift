// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// One enrolled finger or face appearance.
public struct Enrollment: Codable, Sendable, Hashable {
    public var modality: BiometricModality
    /// An fprintd finger name (`right-index-finger`) or a face appearance (`primary`, `alternate`).
    public var label: String
    /// The provider's opaque id of the template behind the label; nil for built-in sensors,
    /// whose templates are the labels themselves. Stored profiles without it read as nil.
    public var template: String?

    public init(modality: BiometricModality, label: String, template: String? = nil) {
        self.modality = modality
        self.label = label
        self.template = template
    }
}
