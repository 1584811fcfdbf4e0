// SPDX-License-Identifier: Apache-2.0
import CDBus
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// A private connection to a message bus, driven by one serial dispatch queue.
///
/// Every libdbus call for this connection, and every callback libdbus makes, runs on `queue`;
/// internal code checks this with `dispatchPrecondition`. Public methods may be called from any
/// thread: synchronous ones run inline when already on `queue` and otherwise wait for it, async
/// ones hop to it. Handlers (method calls, signals, disconnection) are invoked on `queue`.
///
/// libdbus watches and timeouts become DispatchSources that are created and cancelled (never
/// suspended) as libdbus enables and disables them. Incoming messages are dispatched from a drain
/// block that the dispatch-status callback schedules; libdbus is never re-entered from its own
/// callbacks.
///
/// An open connection keeps itself alive: call `close()` when done. It closes itself when the bus
/// goes away, after calling the `onDisconnect` handler.
public final class DBusConnection: @unchecked Sendable {
    /// The serial queue that owns this connection and all of its mutable state.
    public let queue: DispatchQueue
    /// The unique name the bus gave this connection, e.g. `:1.42`.
    public let uniqueName: String

    let onQueueKey = DispatchSpecificKey<Bool>()

    // All state below is confined to `queue`.

    /// nil once closed.
    private(set) var raw: OpaquePointer?
    /// Keeps an open connection alive even when its owner forgot it; cleared by `close()`.
    private var selfReference: DBusConnection?
    private var watchSources: [OpaquePointer: [any DispatchSourceProtocol]] = [:]
    private var timeoutSources: [OpaquePointer: any DispatchSourceTimer] = [:]
    private var drainScheduled = false
    private var disconnectHandler: (@Sendable () -> Void)?
    /// Client calls awaiting a reply, failed by `close()`.
    var outstandingCalls: [ObjectIdentifier: PendingCall] = [:]
    /// Signal subscribers by subscription id.
    var subscriptions: [UInt64: SignalSubscriber] = [:]
    var nextSubscriptionID: UInt64 = 1

    /// Opens a private connection and registers with the bus (`Hello`).
    ///
    /// Uses `dbus_connection_open_private` + `dbus_bus_register` rather than `dbus_bus_get`, and
    /// turns off libdbus's exit-on-disconnect. The blocking handshake runs on `queue`.
    public static func connect(
        to bus: DBusBus, queue: DispatchQueue = DispatchQueue(label: "org.localauth.dbus")
    ) async throws -> DBusConnection {
        let address = try bus.resolvedAddress()
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { () throws(DBusError) in
                    try DBusConnection(address: address, queue: queue)
                })
            }
        }
    }

    private init(address: String, queue: DispatchQueue) throws(DBusError) {
        dispatchPrecondition(condition: .onQueue(queue))
        _ = dbus_threads_init_default()
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let raw = dbus_connection_open_private(address, &error) else {
            throw DBusError(error, default: "cannot connect to \(address)")
        }
        dbus_connection_set_exit_on_disconnect(raw, 0)
        guard dbus_bus_register(raw, &error) != 0, let name = dbus_bus_get_unique_name(raw) else {
            dbus_connection_close(raw)
            dbus_connection_unref(raw)
            throw DBusError(error, default: "cannot register with the bus at \(address)")
        }
        self.queue = queue
        self.uniqueName = String(cString: name)
        self.raw = raw
        queue.setSpecific(key: onQueueKey, value: true)
        selfReference = self
        installCallbacks(raw)
    }

    /// Sets the handler called (on `queue`) when the bus connection is lost. Not called for `close()`.
    public func onDisconnect(_ handler: @escaping @Sendable () -> Void) {
        onQueue { disconnectHandler = handler }
    }

    /// Whether the connection is still open.
    public var isOpen: Bool { onQueue { raw != nil } }

    /// Closes the connection: pending calls fail with `Disconnected`, registered objects and
    /// subscriptions go away. Safe to call more than once and from inside a handler.
    public func close() {
        onQueue { closeOnQueue() }
    }

    /// Blocks until every queued outgoing message is written (before a clean exit).
    public func flush() {
        onQueue {
            guard let raw else { return }
            dbus_connection_flush(raw)
        }
    }

    // MARK: Queue confinement

    /// Runs `body` on `queue`: inline if already there, otherwise waiting for it.
    func onQueue<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        if DispatchQueue.getSpecific(key: onQueueKey) == true {
            return try body()
        }
        let result = queue.sync { Result { () throws(E) in try body() } }
        return try result.get()
    }

    /// `raw`, or `Disconnected` if closed. Only on `queue`.
    func openConnection() throws(DBusError) -> OpaquePointer {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let raw else { throw .disconnected() }
        return raw
    }

    /// Queues `message` for sending. Only on `queue`.
    func send(_ message: DBusMessage) throws(DBusError) {
        let raw = try openConnection()
        guard dbus_connection_send(raw, message.raw, nil) != 0 else {
            throw DBusError(.noMemory, "out of memory queueing a message")
        }
    }

    private func closeOnQueue() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let raw else { return }
        for call in outstandingCalls.values {
            call.fail(DBusError.disconnected("the connection was closed before a reply arrived"))
        }
        subscriptions.removeAll()
        dbus_connection_remove_filter(raw, Self.filter, Unmanaged.passUnretained(self).toOpaque())
        dbus_connection_set_dispatch_status_function(raw, nil, nil, nil)
        // Clearing the functions makes libdbus remove every watch and timeout through our callbacks.
        dbus_connection_set_watch_functions(raw, nil, nil, nil, nil, nil)
        dbus_connection_set_timeout_functions(raw, nil, nil, nil, nil, nil)
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
        self.raw = nil
        disconnectHandler = nil
        selfReference = nil
    }

    // MARK: libdbus callbacks

    private static let filter: DBusHandleMessageFunction = { _, message, data in
        guard let message, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        let connection = Unmanaged<DBusConnection>.fromOpaque(data).takeUnretainedValue()
        return connection.filter(DBusMessage(retaining: message, releasedOn: connection))
    }

    private func installCallbacks(_ raw: OpaquePointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        dbus_connection_set_watch_functions(
            raw,
            { watch, data in
                guard let watch, let data else { return 0 }
                Unmanaged<DBusConnection>.fromOpaque(data).takeUnretainedValue().updateWatch(watch)
                return 1
            },
            { watch, data in
                guard let watch, let data else { return }
                Unmanaged<DBusConnection>.fromOpaque(data).takeUnretainedValue().removeWatch(watch)
            },
            { watch, data in
                guard let watch, let data else { return }
                Unmanaged<DBusConnection>.fromOpaque(data).takeUnretainedValue().updateWatch(watch)
            },
            context, nil)
        dbus_connection_set_timeout_functions(
            raw,
            { timeout, data in
                guard let timeout, let data else { return 0 }
                Unmanaged<DBusConnection>.fromOpaque(data).takeUnretainedValue().updateTimeout(timeout)
                return 1
            },
            { timeout, data in
                guard let timeout, let data else { return }
                Unmanaged<DBusConnection>.fromOpaque(data).takeUnretainedValue().removeTimeout(timeout)
            },
            { timeout, data in
                guard let timeout, let data else { return }
                Unmanaged<DBusConnection>.fromOpaque(data).takeUnretainedValue().updateTimeout(timeout)
            },
            context, nil)
        dbus_connection_set_dispatch_status_function(
            raw,
            { _, status, data in
                guard let data, status == DBUS_DISPATCH_DATA_REMAINS else { return }
                Unmanaged<DBusConnection>.fromOpaque(data).takeUnretainedValue().scheduleDrain()
            },
            context, nil)
        dbus_connection_add_filter(raw, Self.filter, context, nil)
        // Messages may already be queued from the handshake.
        if dbus_connection_get_dispatch_status(raw) == DBUS_DISPATCH_DATA_REMAINS { scheduleDrain() }
    }

    private func updateWatch(_ watch: OpaquePointer) {
        dispatchPrecondition(condition: .onQueue(queue))
        removeWatch(watch)
        guard dbus_watch_get_enabled(watch) != 0 else { return }
        let fd = dbus_watch_get_unix_fd(watch)
        let flags = dbus_watch_get_flags(watch)
        var sources: [any DispatchSourceProtocol] = []
        // Each source watches its own duplicate of libdbus's descriptor and closes it in its cancel
        // handler: libdbus closes the original whenever it likes, and libdispatch must never see a
        // descriptor closed (and its number reused by another connection) before the source is
        // cancelled, or its event loop crashes.
        func watched(_ kind: UInt32) -> Int32? {
            guard flags & kind != 0 else { return nil }
            let duplicate = fcntl(fd, F_DUPFD_CLOEXEC, 0)
            return duplicate >= 0 ? duplicate : nil
        }
        if let duplicate = watched(DBUS_WATCH_READABLE.rawValue) {
            let source = DispatchSource.makeReadSource(fileDescriptor: duplicate, queue: queue)
            source.setEventHandler { [weak self] in self?.handleWatch(watch, DBUS_WATCH_READABLE.rawValue) }
            source.setCancelHandler { _ = Glibc.close(duplicate) }
            sources.append(source)
        }
        if let duplicate = watched(DBUS_WATCH_WRITABLE.rawValue) {
            let source = DispatchSource.makeWriteSource(fileDescriptor: duplicate, queue: queue)
            source.setEventHandler { [weak self] in self?.handleWatch(watch, DBUS_WATCH_WRITABLE.rawValue) }
            source.setCancelHandler { _ = Glibc.close(duplicate) }
            sources.append(source)
        }
        watchSources[watch] = sources
        sources.forEach { $0.activate() }
    }

    private func removeWatch(_ watch: OpaquePointer) {
        dispatchPrecondition(condition: .onQueue(queue))
        watchSources.removeValue(forKey: watch)?.forEach { $0.cancel() }
    }

    /// libdbus reads a few KiB per `dbus_watch_handle`; while more input waits, a readable event
    /// reads on, up to about 64 KiB, so a flood of large messages does not fill the bus's queue for
    /// this connection (the bus then refuses everyone's calls to it).
    private func handleWatch(_ watch: OpaquePointer, _ flags: UInt32) {
        dispatchPrecondition(condition: .onQueue(queue))
        for _ in 0..<32 {
            // A source cancelled on this queue never fires again, but be sure the watch is still
            // alive: libdbus may remove or disable it inside each call.
            guard raw != nil, watchSources[watch] != nil else { return }
            _ = dbus_watch_handle(watch, flags)
            var waiting: Int32 = 0
            guard flags == DBUS_WATCH_READABLE.rawValue, watchSources[watch] != nil,
                  ioctl(dbus_watch_get_unix_fd(watch), UInt(FIONREAD), &waiting) == 0, waiting > 0
            else { return }
        }
    }

    private func updateTimeout(_ timeout: OpaquePointer) {
        dispatchPrecondition(condition: .onQueue(queue))
        removeTimeout(timeout)
        guard dbus_timeout_get_enabled(timeout) != 0 else { return }
        let interval = DispatchTimeInterval.milliseconds(max(1, Int(dbus_timeout_get_interval(timeout))))
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.handleTimeout(timeout) }
        timeoutSources[timeout] = timer
        timer.activate()
    }

    private func removeTimeout(_ timeout: OpaquePointer) {
        dispatchPrecondition(condition: .onQueue(queue))
        timeoutSources.removeValue(forKey: timeout)?.cancel()
    }

    private func handleTimeout(_ timeout: OpaquePointer) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard raw != nil, timeoutSources[timeout] != nil else { return }
        _ = dbus_timeout_handle(timeout)
    }

    // MARK: Dispatching incoming messages

    /// Called from the dispatch-status callback, which may run inside any libdbus call: it only
    /// schedules a drain.
    private func scheduleDrain() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !drainScheduled else { return }
        drainScheduled = true
        queue.async { [weak self] in self?.drain() }
    }

    /// Dispatches queued messages, a bounded number per turn so other work on `queue` interleaves.
    private func drain() {
        dispatchPrecondition(condition: .onQueue(queue))
        drainScheduled = false
        for _ in 0..<64 {
            // A handler may close the connection; re-read `raw` every time.
            guard let raw, dbus_connection_dispatch(raw) == DBUS_DISPATCH_DATA_REMAINS else { return }
        }
        scheduleDrain()
    }

    /// Sees every incoming message first: handles disconnection and delivers signals to
    /// subscribers; method calls go on to the registered objects.
    private func filter(_ message: DBusMessage) -> DBusHandlerResult {
        dispatchPrecondition(condition: .onQueue(queue))
        guard message.kind == .signal else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        if message.interface == "org.freedesktop.DBus.Local", message.member == "Disconnected" {
            let handler = disconnectHandler
            closeOnQueue()
            handler?()
            return DBUS_HANDLER_RESULT_HANDLED
        }
        deliverSignal(message)
        return DBUS_HANDLER_RESULT_HANDLED
    }
}

extension DBusError {
    /// A libdbus `DBusError`, or `fallback` if it is not set.
    init(_ error: CDBus.DBusError, default fallback: String) {
        guard let name = error.name else {
            self.init(.failed, fallback)
            return
        }
        self.init(Name(String(cString: name)), error.message.map { String(cString: $0) } ?? fallback)
    }
}

extension DBusConnection {
    /// Runs `body` on `queue`: inline if already there, otherwise later.
    func onQueueAsync(_ body: @escaping @Sendable () -> Void) {
        if DispatchQueue.getSpecific(key: onQueueKey) == true {
            body()
        } else {
            queue.async(execute: body)
        }
    }
}
