// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport

/// One `localauthd` from the same build directory as this harness, on the benchmark's private bus.
///
/// Started like `DaemonUnderTest` (ready when NameOwnerChanged shows the name owned) but keeps its
/// pid for `/proc` readings and reports how long the start took.
final class BenchDaemon: Sendable {
    static let busName = "org.localauth.LocalAuthentication1"
    let process: Process
    let probe: ProcessProbe
    /// From just before `posix_spawn` to the NameOwnerChanged signal that shows the name owned.
    let startUp: Duration

    init(binary: String, bus: PrivateBus, watcher: DBusConnection, stateDirectory: String, configPath: String) async throws {
        let owned = Inbox<String>()
        let subscription = try await watcher.watchNameOwners(Self.busName) { if let owner = $0.newOwner { owned.put(owner) } }
        defer { watcher.unsubscribe(subscription) }
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--address", bus.address, "--state-dir", stateDirectory, "--config", configPath]
        process.standardError = FileHandle.nullDevice
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        _ = try await owned.next(within: .seconds(20))
        startUp = clock.now - start
        probe = ProcessProbe(pid: process.processIdentifier)
    }

    /// SIGKILL and wait, so the next daemon can own the name.
    func stop(watcher: DBusConnection) async throws {
        let gone = Inbox<Bool>()
        let subscription = try await watcher.watchNameOwners(Self.busName) { if $0.newOwner == nil { gone.put(true) } }
        defer { watcher.unsubscribe(subscription) }
        ChildProcess.kill(process)
        _ = try await gone.next(within: .seconds(20))
    }
}
