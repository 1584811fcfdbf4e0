// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthBackends
import LocalAuthCore
import LocalAuthDBus
import LocalAuthService
import LocalAuthSystem

#if canImport(Glibc)
import Glibc
#endif

/// Runs the daemon in a detached task and parks the main thread until the task ends the process.
///
/// Not an async `main`: Swift's async main hands the main thread to `dispatchMain()`, which ends it
/// with `pthread_exit`, and that forced unwind maps the binary's unwind tables (`.eh_frame_hdr`
/// and part of `.eh_frame`, ~0.6 MiB) into the idle daemon for nothing. Here the main thread never
/// exits or unwinds; it sleeps in `pause()`. Nothing in the daemon uses the main queue or the main
/// actor, so nothing needs it to run. Its signal mask is left alone: a SIGTERM, SIGINT or SIGHUP it
/// takes runs libdispatch's handler, which passes the signal on to the signal sources
/// (``SignalUnit``), as after `dispatchMain()`; if the inherited mask blocks them, they stay
/// pending for the sources' signalfd.
enum DaemonProcess {
    /// Starts the daemon's units, reports READY=1 and serves until a stop; exits 0 then, or with
    /// the start error's status (69, 70, 73) if it cannot start.
    static func serve(_ settings: Daemon.Settings, registry: BackendRegistry, log: SystemLog) -> Never {
        Task.detached {
            let daemon: Daemon
            do throws(Daemon.StartError) {
                daemon = try await Daemon.start(settings, registry: registry, audit: log, log: { log.log($0, $1) })
            } catch {
                fail(error.description, status: error.exitStatus)
            }
            ServiceManager.notify("READY=1\nSTATUS=\(await daemon.status())")
            log.log(.notice, "localauthd \(LocalAuthInterface.version): serving \(LocalAuthBusNames.busName), state in \(settings.stateDirectory)")
            await daemon.run()
            exit(0)
        }
        while true { pause() }
    }
}
