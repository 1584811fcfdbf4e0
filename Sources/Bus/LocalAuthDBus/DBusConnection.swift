// SPDX-License-Identifier: Apache-2.0
import CDBus
#if canImport(Glibc)
import Glibc
#endif

/// A private connection to a message bus, driven by its own thread (``DBusEventLoop``).
///
/// Every libdbus call for this connection, and every callback libdbus makes, runs on that
/// thread; internal code checks this with `queue.precondition()`. Public methods may be called
/// from any thread: synchronous ones run inline when already on the loop and otherwise wait for
/// it, async ones hop to it. Handlers (method calls, signals, disconnection) run on the loop.
///
/// The loop polls the socket itself and dispatches incoming messages after each read, a bounded
/// number per turn so that work handed to it interleaves; libdbus is never re-entered from its own
/// callbacks.
///
/// Replies and signals go out in the order sent while the bus keeps up with them. When it falls
/// behind, they wait in a ``DBusOutgoingQueue`` and reach libdbus round-robin by destination, so
/// that no client's backlog delays another's reply by more than a message (a service keeps its
/// socket's send buffer small for this, `connect(to:sendBuffer:)`). While there is a backlog,
/// `org.freedesktop.DBus.Peer`, which libdbus would answer itself, is answered here for the same
/// reason. Each destination's messages keep their order; a broadcast signal goes out after
/// everything held before it. Method calls awaiting a reply go straight to libdbus, after what
/// was held for their destination. Replies libdbus makes itself to calls nothing is registered
/// for (an unknown path, `Introspect` of a parent path) still skip the queues.
///
/// An open connection keeps itself alive: call `close()` when done. It closes itself when the bus
/// goes away, after calling the `onDisconnect` handler.
public final class DBusConnection: @unchecked Sendable {
    /// The thread that owns this connection and all of its mutable state.
    public let queue: DBusEventLoop
    /// The unique name the bus gave this connection, e.g. `:1.42`.
    public let uniqueName: String

    // All state below is confined to `queue`.

    /// nil once closed.
    private(set) var raw: OpaquePointer?
    /// Keeps an open connection alive even when its owner forgot it; cleared by `close()`.
    private var selfReference: DBusConnection?
    private var disconnectHandler: (@Sendable () -> Void)?
    /// Client calls awaiting a reply, failed by `close()`.
    var outstandingCalls: [ObjectIdentifier: PendingCall] = [:]
    /// Signal subscribers by subscription id.
    var subscriptions: [UInt64: SignalSubscriber] = [:]
    var nextSubscriptionID: UInt64 = 1
    /// Replies and signals waiting for the bus to take the ones before them.
    private var heldBack = DBusOutgoingQueue<DBusMessage>()
    /// When a held message last went to libdbus, or the first was held.
    private var lastHeldBackSent = ContinuousClock.now

    /// How long held messages wait at most for libdbus's queue to empty before one goes anyway:
    /// what goes straight to libdbus (method calls, the replies it makes itself) can keep that
    /// queue from ever emptying while a flood lasts. The loop looks again at least this often
    /// while anything is held.
    static let heldBackPatience = Duration.milliseconds(10)

    /// Opens a private connection on `loop` (nil: a new ``DBusEventLoop``) and registers with the bus (`Hello`).
    ///
    /// Uses `dbus_connection_open_private` + `dbus_bus_register` rather than `dbus_bus_get`, and
    /// turns off libdbus's exit-on-disconnect. The blocking handshake runs on the loop.
    /// - Parameter sendBuffer: the socket's send buffer to ask the kernel for (Linux doubles it),
    ///   for a service that answers many clients: what the bus has not read yet waits there in
    ///   order, ahead of any reply sent now, and the default (~208 KiB) holds a thousand small
    ///   replies. Messages beyond it wait in this connection's queues, each destination in turn.
    public static func connect(to bus: DBusBus, sendBuffer: Int32? = nil, on loop: DBusEventLoop? = nil) async throws -> DBusConnection {
        let address = try bus.resolvedAddress()
        let queue = loop ?? DBusEventLoop()
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { () throws(DBusError) in
                    try DBusConnection(address: address, queue: queue, sendBuffer: sendBuffer)
                })
            }
        }
    }

    private init(address: String, queue: DBusEventLoop, sendBuffer: Int32?) throws(DBusError) {
        queue.precondition()
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
        selfReference = self
        var socket: Int32 = -1
        if var size = sendBuffer, dbus_connection_get_socket(raw, &socket) != 0 {
            _ = setsockopt(socket, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
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
            sendAllHeldBack(raw)
            dbus_connection_flush(raw)
        }
    }

    // MARK: Queue confinement

    /// Runs `body` on `queue`: inline if already there, otherwise waiting for it.
    func onQueue<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try queue.sync { Result { () throws(E) in try body() } }.get()
    }

    /// `raw`, or `Disconnected` if closed. Only on `queue`.
    func openConnection() throws(DBusError) -> OpaquePointer {
        queue.precondition()
        guard let raw else { throw .disconnected() }
        return raw
    }

    /// Queues `message` for sending: with libdbus while the bus keeps up, otherwise behind the
    /// messages held for the same destination. Only on `queue`.
    func send(_ message: DBusMessage) throws(DBusError) {
        let raw = try openConnection()
        if heldBack.isEmpty, dbus_connection_get_outgoing_size(raw) == 0 {
            return try sendNow(message, raw)
        }
        guard let destination = message.destination else {
            // A broadcast may reach every client: after everything held before it.
            sendAllHeldBack(raw)
            return try sendNow(message, raw)
        }
        if heldBack.isEmpty { lastHeldBackSent = .now }
        heldBack.hold(message, for: destination)
        sendHeldBackInTurn(raw, forcing: false)
    }

    private func sendNow(_ message: DBusMessage, _ raw: OpaquePointer) throws(DBusError) {
        guard dbus_connection_send(raw, message.raw, nil) != 0 else {
            throw DBusError(.noMemory, "out of memory queueing a message")
        }
    }

    /// Hands libdbus everything held, each destination in turn.
    private func sendAllHeldBack(_ raw: OpaquePointer) {
        while let message = heldBack.next() {
            _ = dbus_connection_send(raw, message.raw, nil)
        }
    }

    /// Hands libdbus what is held for `destination`, before a method call to it goes straight to
    /// libdbus. Only on `queue`.
    func sendHeldBack(to destination: String?) {
        queue.precondition()
        guard !heldBack.isEmpty, let destination, let raw else { return }
        for message in heldBack.takeAll(for: destination) {
            _ = dbus_connection_send(raw, message.raw, nil)
        }
    }

    /// Hands held messages to libdbus, a destination at a time, while the socket takes them; when
    /// `forcing` (once a turn of the loop), one anyway if none went for ``heldBackPatience``.
    private func sendHeldBackInTurn(_ raw: OpaquePointer, forcing: Bool) {
        var sent = false
        // A message libdbus has no memory to queue is dropped, as it is when sent directly.
        while dbus_connection_get_outgoing_size(raw) == 0, let message = heldBack.next() {
            _ = dbus_connection_send(raw, message.raw, nil)
            sent = true
        }
        if forcing, !sent, ContinuousClock.now - lastHeldBackSent >= Self.heldBackPatience, let message = heldBack.next() {
            _ = dbus_connection_send(raw, message.raw, nil)
            sent = true
        }
        if sent { lastHeldBackSent = .now }
    }

    private func closeOnQueue() {
        queue.precondition()
        guard let raw else { return }
        for call in outstandingCalls.values {
            call.fail(DBusError.disconnected("the connection was closed before a reply arrived"))
        }
        subscriptions.removeAll()
        heldBack.removeAll()
        queue.serve(nil)
        dbus_connection_remove_filter(raw, Self.filter, Unmanaged.passUnretained(self).toOpaque())
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
        // Only signals stop here: a call or reply passes on unwrapped (a wrapper per message cost
        // an allocation and its reference counting on every call).
        guard let message, let data, dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_SIGNAL else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        let connection = Unmanaged<DBusConnection>.fromOpaque(data).takeUnretainedValue()
        return connection.filter(DBusMessage(retaining: message, releasedOn: connection))
    }

    /// Hands libdbus's watches and timeouts to the loop (which polls and times them itself) and
    /// has the loop dispatch after every turn. The loop is retained by the connection, so it
    /// outlives libdbus's use of it.
    private func installCallbacks(_ raw: OpaquePointer) {
        let loop = Unmanaged.passUnretained(queue).toOpaque()
        dbus_connection_set_watch_functions(
            raw,
            { watch, data in
                guard let watch, let data else { return 0 }
                Unmanaged<DBusEventLoop>.fromOpaque(data).takeUnretainedValue().addWatch(watch)
                return 1
            },
            { watch, data in
                guard let watch, let data else { return }
                Unmanaged<DBusEventLoop>.fromOpaque(data).takeUnretainedValue().removeWatch(watch)
            },
            // The loop reads each watch's enabled flag before every poll.
            { _, _ in },
            loop, nil)
        dbus_connection_set_timeout_functions(
            raw,
            { timeout, data in
                guard let timeout, let data else { return 0 }
                Unmanaged<DBusEventLoop>.fromOpaque(data).takeUnretainedValue().addTimeout(timeout)
                return 1
            },
            { timeout, data in
                guard let timeout, let data else { return }
                Unmanaged<DBusEventLoop>.fromOpaque(data).takeUnretainedValue().removeTimeout(timeout)
            },
            { timeout, data in
                guard let timeout, let data else { return }
                Unmanaged<DBusEventLoop>.fromOpaque(data).takeUnretainedValue().toggleTimeout(timeout)
            },
            loop, nil)
        dbus_connection_add_filter(raw, Self.filter, Unmanaged.passUnretained(self).toOpaque(), nil)
        queue.serve({ [unowned self] in drain() }, recheck: { [unowned self] in heldBack.isEmpty ? nil : Self.heldBackPatience })
    }

    // MARK: Dispatching incoming messages

    /// Sends what was held back while the socket takes it, then dispatches queued messages, a
    /// bounded number per turn so other work on the loop interleaves; returns whether more are
    /// waiting.
    private func drain() -> Bool {
        queue.preconditionOutsideIsolatedJob()
        if !heldBack.isEmpty, let raw { sendHeldBackInTurn(raw, forcing: true) }
        // Without a backlog libdbus may answer Peer itself: nothing would wait behind its replies.
        let answersPeer = !heldBack.isEmpty || raw.map { dbus_connection_get_outgoing_size($0) > 0 } ?? false
        for _ in 0..<64 {
            // A handler may close the connection; re-read `raw` every time.
            guard let raw else { return false }
            if answersPeer, let next = dbus_connection_borrow_message(raw) {
                if dbus_message_get_type(next) == DBUS_MESSAGE_TYPE_METHOD_CALL, dbus_message_has_interface(next, Self.peerInterface) != 0 {
                    dbus_connection_steal_borrowed_message(raw, next)
                    answerPeer(DBusMessage(owning: next, releasedOn: self))
                    continue
                }
                dbus_connection_return_message(raw, next)
            }
            guard dbus_connection_dispatch(raw) == DBUS_DISPATCH_DATA_REMAINS else { return false }
        }
        return true
    }

    private static let peerInterface = "org.freedesktop.DBus.Peer"

    /// Answers `org.freedesktop.DBus.Peer` as libdbus would (`Ping`, `GetMachineId`), but through
    /// ``send(_:)``: libdbus's own answers skip the queues that keep one flooding client's replies
    /// from delaying everyone else's.
    private func answerPeer(_ call: DBusMessage) {
        let member = call.member ?? ""
        let reply = DBusPendingReply(call: call, sender: call.sender, member: member, connection: self)
        switch member {
        case "Ping":
            reply.send([])
        case "GetMachineId":
            var error = CDBus.DBusError()
            dbus_error_init(&error)
            defer { dbus_error_free(&error) }
            guard let id = dbus_try_get_local_machine_id(&error) else {
                return reply.fail(DBusError(error, default: "cannot read the machine id"))
            }
            defer { dbus_free(id) }
            reply.send([.string(String(cString: id))])
        default:
            reply.fail(DBusError(.unknownMethod, "Unknown method \"\(member)\" on interface \"\(Self.peerInterface)\""))
        }
    }

    /// Sees every incoming message first: handles disconnection and delivers signals to
    /// subscribers; method calls go on to the registered objects.
    private func filter(_ message: DBusMessage) -> DBusHandlerResult {
        queue.precondition()
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
