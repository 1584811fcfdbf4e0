// SPDX-License-Identifier: Apache-2.0
/// Names one right of a user: its application and identifier.
struct RightKey: Sendable, Hashable {
    let application: String
    let identifier: String
}
