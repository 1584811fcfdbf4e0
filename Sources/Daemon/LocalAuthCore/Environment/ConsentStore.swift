// SPDX-License-Identifier: Apache-2.0
/// Where each user's face consent decisions live between runs; saves are durable when they return.
public protocol ConsentStore: Sendable {
    /// nil when the user has decided nothing yet.
    func loadFaceConsents(user: UInt32) throws(StateStoreError) -> FaceConsents?
    func saveFaceConsents(_ consents: FaceConsents, user: UInt32) throws(StateStoreError)
}
