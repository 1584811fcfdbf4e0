// SPDX-License-Identifier: Apache-2.0
import LocalAuthCore
import Synchronization

/// Keeps audit entries in memory.
public final class RecordingAuditSink: AuditSink {
    private let entries = Mutex<[AuditEntry]>([])

    public init() {}

    public var all: [AuditEntry] { entries.withLock { $0 } }

    public func record(_ entry: AuditEntry) {
        entries.withLock { $0.append(entry) }
    }
}
