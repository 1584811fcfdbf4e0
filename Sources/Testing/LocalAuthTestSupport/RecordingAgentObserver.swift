// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import Synchronization

/// Records what the engine tells agents, in order.
public final class RecordingAgentObserver: AgentObserver {
    public enum Call: Sendable, Hashable {
        case begin(AgentRequest, agent: ClientID)
        case update(AgentUpdate, agent: ClientID)
        case end(handle: String, result: String, agent: ClientID)

        public var agent: ClientID {
            switch self {
            case .begin(_, let agent), .update(_, let agent), .end(_, _, let agent): agent
            }
        }
    }

    private let log = Mutex<[Call]>([])

    public init() {}

    public var calls: [Call] { log.withLock { $0 } }

    /// The latest cookie sent to `agent` (in a begin or an update).
    public func cookie(of agent: ClientID) -> String? {
        calls.reversed().lazy.compactMap { call -> String? in
            switch call {
            case .begin(let request, let to) where to == agent: request.cookie
            case .update(let update, let to) where to == agent: update.cookie
            default: nil
            }
        }.first
    }

    public func agentBegin(_ request: AgentRequest, agent: ClientID) { log.withLock { $0.append(.begin(request, agent: agent)) } }
    public func agentUpdate(_ update: AgentUpdate, agent: ClientID) { log.withLock { $0.append(.update(update, agent: agent)) } }
    public func agentEnd(handle: String, result: String, agent: ClientID) { log.withLock { $0.append(.end(handle: handle, result: result, agent: agent)) } }
}
