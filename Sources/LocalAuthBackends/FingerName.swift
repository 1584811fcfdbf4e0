// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore

/// fprintd's finger names, the only fingerprint enrollment labels.
public enum FingerName: String, Sendable, CaseIterable {
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

    public init(validating name: String) throws(LocalAuthError) {
        guard let finger = FingerName(rawValue: name) else {
            throw LocalAuthError(.invalidArgument, "Unknown finger \"\(DisplayText.escaped(name, limit: 64))\"; use one of: \(Self.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        self = finger
    }
}
