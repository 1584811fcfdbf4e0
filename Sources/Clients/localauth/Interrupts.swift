// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Ctrl-C (SIGINT) and SIGTERM, delivered on the main queue.
///
/// By default they restore the terminal and exit with status 130; `evaluate` installs its own
/// handler to cancel the evaluation first. Main-actor isolated, like the terminal state.
@MainActor
enum Interrupts {
    private static var sources: [any DispatchSourceSignal] = []
    static var handler: (@MainActor () -> Void)?

    static func install() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler { MainActor.assumeIsolated { fire() } }
            source.resume()
            sources.append(source)
        }
    }

    private static func fire() {
        if let handler {
            handler()
        } else {
            Terminal.restoreEcho()
            exit(ExitStatus.interrupted)
        }
    }
}
