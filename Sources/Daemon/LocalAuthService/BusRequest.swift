// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthDBus

/// What a row's handler is given besides the engine and its arguments: the call (its object
/// path; its reply, for an answer sent later) and who sent it.
struct BusRequest: Sendable {
    let call: DBusMethodCall
    let bus: BusCaller

    var caller: Caller { bus.caller }
    var client: ClientID { bus.caller.client }
}
