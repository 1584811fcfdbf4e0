// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthDBus

extension CallerDirectory {
    /// Answers `call` from `body`, run in the sender's queue with the sender's identity.
    /// `body` returns the reply values, or nil when it answers `call.reply` itself later.
    /// If the sender already has as much queued as allowed, `call` is answered `LimitsExceeded`.
    func respond(to call: DBusMethodCall, _ body: @escaping @Sendable (BusCaller) async throws -> [DBusValue]?) -> DBusMethodReply {
        let reply = call.reply
        let refusal = submit(from: call.sender, byteCount: call.byteCount, replyExpected: reply.isReplyExpected) { identity in
            switch identity {
            case .failure(let error):
                reply.fail(error)
            case .success(let caller):
                do {
                    if let values = try await body(caller) { reply.send(values) }
                } catch let error as LocalAuthError {
                    reply.fail(error.dbusError)
                } catch let error as DBusError {
                    reply.fail(error)
                } catch {
                    reply.fail(.failed("\(error)"))
                }
            }
        }
        if let refusal { reply.fail(refusal) }
        return .deferred
    }
}
