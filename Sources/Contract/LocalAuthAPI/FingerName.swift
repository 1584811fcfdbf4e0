// SPDX-License-Identifier: Apache-2.0
/// fprintd's finger names, the only fingerprint enrollment labels (the `label` of
/// `Manager.Enroll` for the fingerprint modality, the templates a provider reports).
public enum FingerName: String, Sendable, Hashable, CaseIterable {
    case leftThumb = "left-thumb"
    case leftIndexFinger = "left-index-finger"
    case leftMiddleFinger = "left-middle-finger"
    case leftRingFinger = "left-ring-finger"
    case leftLittleFinger = "left-little-finger"
    case rightThumb = "right-thumb"
    case rightIndexFinger = "right-index-finger"
    case rightMiddleFinger = "right-middle-finger"
    case rightRingFinger = "right-ring-finger"
    case rightLittleFinger = "right-little-finger"

    /// The finger named `rawValue`: one table lookup, where the synthesized initializer compared
    /// the name with each case's in turn (a `Touch` names one on every evaluation it serves).
    public init?(rawValue: String) {
        guard let finger = Self.byName[rawValue] else { return nil }
        self = finger
    }

    private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
}
