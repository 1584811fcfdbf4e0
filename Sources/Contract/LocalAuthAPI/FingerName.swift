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
}
