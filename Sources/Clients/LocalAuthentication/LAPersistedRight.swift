// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthProxies

/// Apple's `LAPersistedRight`: a right saved in ``LARightStore``, with a P-256 key pair and,
/// when saved with one, a secret. Using the private key or the secret needs this right
/// authorized (`authorize(localizedReason:)`, `Context.AuthorizeRight`); the public key does not.
///
/// Get one from ``LARightStore`` (`saveRight`, `right(forIdentifier:)`). Its key and secret use
/// this right's localauthd context; they stop working (`invalidContext`) once the right is gone.
/// When the right is removed or saved again, its authorization ends.
open class LAPersistedRight: LARight, @unchecked Sendable {
    /// The identifier it was saved under.
    let identifier: String
    private let privateKey: LAPrivateKey
    private let storedSecret: LASecret

    init(_ description: RightDescription, bus: Result<DBusBus, LAError>) {
        identifier = description.identifier
        let session = ContextSession(bus: bus)
        privateKey = LAPrivateKey(identifier: description.identifier, session: session,
                                  publicKey: LAPublicKey(bytes: description.publicKey, bus: bus))
        storedSecret = LASecret(identifier: description.identifier, session: session)
        super.init(requirement: LAAuthenticationRequirement(expression: description.requirement), bus: bus, session: session)
    }

    /// The right's private key: sign, decrypt and exchange keys once the right is authorized.
    open var key: LAPrivateKey { privateKey }

    /// The secret saved with the right, readable once the right is authorized.
    open var secret: LASecret { storedSecret }

    override func authorizationCall(reason: String, domainState: Data?) -> ContextSession.EvaluationCall {
        let identifier = identifier
        return ContextSession.EvaluationCall(perform: { try await $0.authorizeRight(identifier, reason: reason, timeout: $1) },
                                             acceptsPasscode: requirement.acceptsPasscode)
    }

    override func checkCall(domainState: Data?) -> @Sendable (ContextProxy) async throws -> [UInt8]? {
        let identifier = identifier
        return {
            try await $0.checkCanAuthorizeRight(identifier)
            return nil
        }
    }

    override var bindsEnrollmentsAtFirstAuthorization: Bool { false }

    /// `Context.DeauthorizeRight`; the context stays.
    override func endAuthorization(_ done: @escaping @Sendable () -> Void) {
        let identifier = identifier
        session.send(.call({
            try await $0.deauthorizeRight(identifier)
            return nil
        }) { [self] _ in
            // A failure means the context or right is gone: not authorized either way.
            markNotAuthorized()
            done()
        })
    }
}
