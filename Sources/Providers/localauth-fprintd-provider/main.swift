// SPDX-License-Identifier: Apache-2.0
// localauth-fprintd-provider: wiring only — options, the bus, signals, the provider.
import Dispatch
import LocalAuthDBus

#if canImport(Glibc)
import Glibc
#endif

/// One line on standard error (the journal, under systemd).
@Sendable func log(_ message: String) {
    let line = Array("localauth-fprintd-provider: \(message)\n".utf8)
    line.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

let options: ProviderOptions
do {
    options = try ProviderOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    log("\(error)\n\(ProviderOptions.usage)")
    exit(64)
}
if options.showHelp {
    print(ProviderOptions.usage)
    exit(0)
}

for signalNumber in [SIGTERM, SIGINT] { signal(signalNumber, SIG_IGN) }
signal(SIGPIPE, SIG_IGN)
let (stop, stopRequested) = AsyncStream<Int32>.makeStream()
let signalSources = [SIGTERM, SIGINT].map { signalNumber in
    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
    source.setEventHandler { stopRequested.yield(signalNumber) }
    source.resume()
    return source
}

let connection: DBusConnection
do {
    connection = try await DBusConnection.connect(to: options.bus)
} catch {
    log("cannot connect to \(options.bus): \(error)")
    exit(69)
}
connection.onDisconnect {
    log("the bus connection was lost")
    exit(69)
}

let (events, eventSink) = AsyncStream<FprintdProvider.Event>.makeStream()
let object = ProviderObject(connection: connection, events: eventSink, log: log)
let provider = FprintdProvider(
    fprintd: Fprintd(connection: connection, timeout: options.fprintdTimeout),
    reporter: HostReporter(connection: connection, log: log), signalsReceived: { object.signalsReceived }, log: log)
// On the connection's loop: fprintd's replies and signals resume the provider without a thread hand-off.
let running = Task(executorPreference: connection.queue) { await provider.run(events) }
do {
    try await object.start()
    try await connection.requestName(options.busName)
} catch {
    log("cannot serve \(options.busName) on \(options.bus): \(error)")
    exit(69)
}

for await signalNumber in stop {
    log("stopping on signal \(signalNumber)")
    // Release the reader before leaving: a held claim would block the lock screen until fprintd notices.
    await withCheckedContinuation { done in eventSink.yield(.terminate(done)) }
    connection.flush()
    exit(0)
}
_ = signalSources
_ = running
