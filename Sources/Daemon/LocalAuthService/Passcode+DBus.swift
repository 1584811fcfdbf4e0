// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import LocalAuthDBus

extension Passcode {
    /// Copies a secret argument straight into a passcode; both buffers are wiped when released,
    /// and the `DBusSecret` goes as soon as the call's arguments do.
    convenience init(_ secret: DBusSecret) {
        self.init(count: secret.count) { buffer in
            secret.withBytes { _ = buffer.initialize(from: $0) }
        }
    }
}
