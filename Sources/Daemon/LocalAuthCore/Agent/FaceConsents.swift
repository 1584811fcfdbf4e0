// SPDX-License-Identifier: Apache-2.0
/// One user's answers to "Allow APP to use Face ID?", by app identity; kept in the state store.
public struct FaceConsents: Codable, Sendable, Hashable {
    /// App identity (its executable path) → allowed.
    public var apps: [String: Bool] = [:]

    /// Decisions kept per user; the oldest is not dropped: more are refused.
    public static let maximumApps = 1024
    /// Changes a user may make per minute (each one is written to disk); more are refused with
    /// LimitsExceeded. Repeating a decision already stored changes nothing and is not counted.
    public static let maximumChangesPerMinute = 20

    public init(apps: [String: Bool] = [:]) {
        self.apps = apps
    }
}

/// Whether an app may use the face sensor for a context.
enum FaceAllowance: Sendable, Hashable {
    /// The context gave no usage description: face is not offered (Apple refuses face to an app
    /// without `NSFaceIDUsageDescription`).
    case noUsageDescription
    /// The daemon could not tell which app the caller is (the log says why): its decision would
    /// be every unidentified app's, so face is not offered.
    case appUnidentified
    /// The user has not decided; face is offered only while an agent can ask.
    case undecided
    case allowed
    case denied
}
