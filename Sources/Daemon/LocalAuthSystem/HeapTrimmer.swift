// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import Synchronization

/// Gives freed heap memory back to the system shortly after many contexts went away.
///
/// glibc keeps what is freed in its heaps, and after a large block is freed it raises its mmap
/// threshold, so the next large table grows inside the heap: without a trim, RSS after 10 000
/// contexts came and went twice stayed 6 MiB above idle. A trim (`malloc_trim`) costs about a
/// millisecond for this daemon's heap, so it runs at most once per ``contextsPerTrim`` contexts
/// released, ``delay`` after the release that reached that count (later releases join it).
/// Thread-safe; `malloc_trim` is looked up at run time (C libraries without it: no trim).
public final class HeapTrimmer: Sendable {
    public static let contextsPerTrim = 256
    public static let delay = DispatchTimeInterval.milliseconds(100)
    /// Where the trim runs: a serial queue, never `.global()` (docs/architecture.md, "Threads").
    private static let queue = DispatchQueue(label: "localauthd.heap-trim")

    private struct Pending {
        var released = 0
        var scheduled = false
    }

    private let pending = Mutex(Pending())
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? =
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim").map { unsafeBitCast($0, to: (@convention(c) (Int) -> Int32).self) }
    private static let mallopt: (@convention(c) (Int32, Int32) -> Int32)? =
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt").map { unsafeBitCast($0, to: (@convention(c) (Int32, Int32) -> Int32).self) }
    /// glibc's `M_MMAP_THRESHOLD`.
    private static let mmapThresholdOption: Int32 = -3

    /// Also fixes glibc's mmap threshold at its default (128 KiB): a block that large (the tables
    /// of thousands of contexts) then always gets its own mapping, returned when freed, instead
    /// of the threshold rising after the first such free and the next table fragmenting a heap.
    public init() {
        _ = Self.mallopt?(Self.mmapThresholdOption, 128 * 1024)
    }

    /// `count` contexts were freed.
    public func released(contexts count: Int) {
        let schedule = pending.withLock { pending in
            pending.released += count
            guard pending.released >= Self.contextsPerTrim, !pending.scheduled else { return false }
            pending.scheduled = true
            return true
        }
        guard schedule else { return }
        Self.queue.asyncAfter(deadline: .now() + Self.delay) { [self] in
            pending.withLock { $0 = Pending() }
            _ = Self.mallocTrim?(0)
        }
    }
}
