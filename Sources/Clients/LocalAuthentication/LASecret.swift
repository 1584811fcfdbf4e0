// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthProxies

/// Apple's `LASecret`: the secret saved with an ``LAPersistedRight``, readable once that right is
/// authorized (`Context.LoadSecret` in the right's context).
///
/// Before `authorize`, or after `deauthorize`: `LAError.notInteractive`. A right saved without a
/// secret: `errSecParam`. The returned `Data` is yours to wipe.
open class LASecret: NSObject, @unchecked Sendable {
    private let identifier: String
    private let session: ContextSession

    init(identifier: String, session: ContextSession) {
        self.identifier = identifier
        self.session = session
    }

    /// The secret's bytes.
    open func loadData() async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            loadData { data, error in
                if let data { continuation.resume(returning: data) } else { continuation.resume(throwing: error ?? LAError(.systemCancel, message: nil)) }
            }
        }
    }

    /// The completion form of ``loadData()``.
    @preconcurrency
    open func loadData(completion handler: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        let identifier = identifier
        session.send(.call({ try await $0.loadSecret(identifier) }) { result in
            let (data, error) = KeyOperation.data(result)
            LAContext.replyQueue.async { handler(data, error) }
        })
    }
}
