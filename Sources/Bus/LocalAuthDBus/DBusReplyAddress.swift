// SPDX-License-Identifier: Apache-2.0
/// Where the reply to a received method call goes: the call's serial and its sender.
///
/// A pending reply keeps this instead of the call message, so the call's bytes go back to
/// libdbus's received-size counter as soon as the call is dispatched, not when its (perhaps much
/// later) reply is sent: work queued in the service does not hold libdbus's received bytes.
struct DBusReplyAddress: Sendable {
    let serial: UInt32
    /// nil only on a peer-to-peer connection.
    let sender: String?
}
