// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus

/// Apple's `LARightStore`: saves rights with a new P-256 key and an optional secret, and finds
/// them again — in localauthd, for this user and this application (the app's identity as the
/// daemon sees it: its Flatpak or Snap id, else its executable's path).
///
/// Another app's or user's right by the same identifier is not found (`errSecItemNotFound`),
/// as a right that does not exist. Saving needs a passcode set (`LAError.passcodeNotSet`) and,
/// for a biometric requirement, enrolled biometry (`biometryNotEnrolled`). Saving an identifier
/// again replaces the right: a new key, and earlier authorizations of it end. Removing the
/// passcode removes every right of the user. Identifiers: 1–128 bytes, no control characters;
/// secrets up to 16 KiB; at most 64 rights per app.
open class LARightStore: NSObject, @unchecked Sendable {
    private let rights: RightsService

    private static let sharedStore = LARightStore(bus: DaemonBus.fromEnvironment())

    /// The store, on the bus `LAContext` would use (read at first use).
    open class var shared: LARightStore { sharedStore }

    init(bus: Result<DBusBus, LAError>) {
        rights = RightsService(bus: bus)
    }

    /// A store whose daemon is at `busAddress` (tests).
    @_spi(Testing) public convenience init(busAddress: String) {
        self.init(bus: .success(.address(busAddress)))
    }

    /// The right saved under `identifier`, not yet authorized.
    open func right(forIdentifier identifier: String) async throws -> LAPersistedRight {
        LAPersistedRight(try await rights.right(identifier), bus: rights.bus)
    }

    /// The completion form of ``right(forIdentifier:)``.
    @preconcurrency
    open func right(forIdentifier identifier: String, completion handler: @escaping @Sendable (LAPersistedRight?, (any Error)?) -> Void) {
        complete(handler) { try await self.right(forIdentifier: identifier) }
    }

    /// Saves `right`'s requirement under `identifier` with a new key and no secret.
    open func saveRight(_ right: LARight, identifier: String) async throws -> LAPersistedRight {
        LAPersistedRight(try await rights.saveRight(identifier, requirement: right.requirement.expression, secret: nil), bus: rights.bus)
    }

    /// The completion form of ``saveRight(_:identifier:)``.
    @preconcurrency
    open func saveRight(_ right: LARight, identifier: String, completion handler: @escaping @Sendable (LAPersistedRight?, (any Error)?) -> Void) {
        complete(handler) { try await self.saveRight(right, identifier: identifier) }
    }

    /// Saves `right`'s requirement under `identifier` with a new key and `secret` (sealed by
    /// localauthd; readable through ``LAPersistedRight/secret`` once authorized).
    open func saveRight(_ right: LARight, identifier: String, secret: Data) async throws -> LAPersistedRight {
        LAPersistedRight(try await rights.saveRight(identifier, requirement: right.requirement.expression, secret: secret), bus: rights.bus)
    }

    /// The completion form of ``saveRight(_:identifier:secret:)``.
    @preconcurrency
    open func saveRight(_ right: LARight, identifier: String, secret: Data,
                        completion handler: @escaping @Sendable (LAPersistedRight?, (any Error)?) -> Void) {
        complete(handler) { try await self.saveRight(right, identifier: identifier, secret: secret) }
    }

    /// Removes `right` (its key and secret); its authorization ends.
    open func removeRight(_ right: LAPersistedRight) async throws {
        try await rights.removeRight(right.identifier)
        right.markNotAuthorized()
    }

    /// The completion form of ``removeRight(_:)``.
    @preconcurrency
    open func removeRight(_ right: LAPersistedRight, completion handler: @escaping @Sendable ((any Error)?) -> Void) {
        complete(handler) { try await self.removeRight(right) }
    }

    /// Removes the right saved under `identifier`.
    open func removeRight(forIdentifier identifier: String) async throws {
        try await rights.removeRight(identifier)
    }

    /// The completion form of ``removeRight(forIdentifier:)``.
    @preconcurrency
    open func removeRight(forIdentifier identifier: String, completion handler: @escaping @Sendable ((any Error)?) -> Void) {
        complete(handler) { try await self.removeRight(forIdentifier: identifier) }
    }

    /// Removes every right of this app.
    open func removeAllRights() async throws {
        try await rights.removeAllRights()
    }

    /// The completion form of ``removeAllRights()``.
    @preconcurrency
    open func removeAllRights(completion handler: @escaping @Sendable ((any Error)?) -> Void) {
        complete(handler) { try await self.removeAllRights() }
    }

    private func complete<T: Sendable>(_ handler: @escaping @Sendable (T?, (any Error)?) -> Void, _ work: @escaping @Sendable () async throws -> T) {
        Task(executorPreference: ClientExecutor.shared) {
            do {
                let value = try await work()
                LAContext.replyQueue.async { handler(value, nil) }
            } catch {
                LAContext.replyQueue.async { handler(nil, error) }
            }
        }
    }

    private func complete(_ handler: @escaping @Sendable ((any Error)?) -> Void, _ work: @escaping @Sendable () async throws -> Void) {
        Task(executorPreference: ClientExecutor.shared) {
            do {
                try await work()
                LAContext.replyQueue.async { handler(nil) }
            } catch {
                LAContext.replyQueue.async { handler(error) }
            }
        }
    }
}
