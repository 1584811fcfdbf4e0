import LocalAuthCore
import LocalAuthDBus
import Synchronization

/// Who a caller is, as the bus reports it.
struct BusCaller: Sendable {
    let caller: Caller
    let credentials: DBusCredentials
}

/// Establishes each sender's identity from the bus (`GetConnectionCredentials`, cached per
/// unique name) and runs each sender's requests one after another in arrival order, so that,
/// say, a Cancel sent right after EvaluatePolicy finds the evaluation started. Different senders
/// run concurrently. When a sender leaves the bus, its queue runs `farewell` after its last request.
final class CallerDirectory: Sendable {
    typealias Job = @Sendable (Result<BusCaller, DBusError>) async -> Void

    private let connection: DBusConnection
    private let pipelines = Mutex<[String: AsyncStream<Job>.Continuation]>([:])

    init(connection: DBusConnection) {
        self.connection = connection
    }

    /// Queues `job` behind the sender's earlier requests; it receives the sender's identity or
    /// the reason it could not be established (then the request must be denied).
    func submit(from sender: String?, _ job: @escaping Job) {
        guard let sender else {
            Task { await job(.failure(.accessDenied("The call has no sender; connect through a message bus."))) }
            return
        }
        let continuation = pipelines.withLock { pipelines in
            if let existing = pipelines[sender] { return existing }
            let (stream, continuation) = AsyncStream<Job>.makeStream()
            pipelines[sender] = continuation
            Task { [connection] in
                var identity: Result<BusCaller, DBusError>?
                for await job in stream {
                    if identity == nil {
                        do {
                            let credentials = try await connection.credentials(of: sender)
                            identity = .success(BusCaller(caller: Caller(client: ClientID(sender), uid: credentials.uid, pid: credentials.pid),
                                                          credentials: credentials))
                        } catch {
                            let reason = (error as? DBusError)?.message ?? "\(error)"
                            // Not cached: a later request may succeed, but this one is denied.
                            await job(.failure(.accessDenied("Could not establish who is calling (\(reason)); access denied.")))
                            continue
                        }
                    }
                    await job(identity!)
                }
            }
            return continuation
        }
        continuation.yield(job)
    }

    /// The sender left the bus: after its queued requests, `farewell` runs, then its queue ends.
    func senderLeft(_ sender: String, farewell: @escaping @Sendable () async -> Void) {
        let continuation = pipelines.withLock { $0.removeValue(forKey: sender) }
        guard let continuation else { return }
        continuation.yield { _ in await farewell() }
        continuation.finish()
    }
}
