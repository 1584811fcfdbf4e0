// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization

/// What a child process writes into one pipe, read to end of file by a blocking thread of its own:
/// each complete line goes into `lines` as it arrives, and all text is kept for failure messages.
///
/// A blocking `read` because `FileHandle.readabilityHandler` is not reliable here. Create it after
/// the child's `run()`, which closes the parent's copy of the pipe's write end: end of file then
/// comes when the child (and whatever inherited the pipe) has exited. The reader thread owns the
/// partial line; `text` is guarded by its own mutex.
public final class ChildOutput: Sendable {
    /// Each complete line, without its `\n`. Text after the last `\n` is only in `text`.
    public let lines = Inbox<String>()
    private let ended = Inbox<Bool>()
    private let data = Mutex(Data())
    /// Kept so its file descriptor stays open while the reader thread uses it.
    private let pipe: Pipe

    public init(_ pipe: Pipe) {
        self.pipe = pipe
        let fd = pipe.fileHandleForReading.fileDescriptor
        Thread.detachNewThread { [self] in
            var chunk = [UInt8](repeating: 0, count: 4096)
            var partial: [UInt8] = []
            while true {
                let count = read(fd, &chunk, chunk.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                data.withLock { $0.append(contentsOf: chunk[..<count]) }
                partial += chunk[..<count]
                while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
                    lines.put(String(decoding: partial[..<newline], as: UTF8.self))
                    partial.removeSubrange(...newline)
                }
            }
            ended.put(true)
        }
    }

    /// Everything read so far, complete lines or not.
    public var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Waits for end of file, after which `text` is all the child wrote. Waiting again after it
    /// came returns at once.
    public func end(within timeout: Duration = .seconds(5)) async throws {
        guard ended.received.isEmpty else { return }
        _ = try await ended.next(within: timeout)
    }
}
