import LocalAuthCore
import Synchronization

/// A clock that moves only when a test advances it.
public final class FakeClock: WallClock {
    private let current: Mutex<Double>

    public init(_ start: Double = 1_800_000_000) {
        current = Mutex(start)
    }

    public func now() -> UnixTime { UnixTime(current.withLock { $0 }) }

    public func advance(by seconds: Double) {
        current.withLock { $0 += seconds }
    }
}
