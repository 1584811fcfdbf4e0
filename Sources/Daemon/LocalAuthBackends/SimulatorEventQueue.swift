// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import Synchronization

/// Simulator inputs that arrived while no evaluation was reading their sensor, shared by all
/// simulators: the next evaluation that arms the sensor consumes them in order, so scripts need
/// no races. Bounded in count (a full queue refuses with limitsExceeded) and in age (each input
/// expires after the TTL, counted on the boot clock so that setting the date does not change it).
public final class SimulatorEventQueue: Sendable {
    /// Turns a stored input into an attempt once the evaluation reading it is known.
    typealias Judge = @Sendable (SensorSession) -> AttemptEvent

    private struct Item {
        let modality: BiometricModality
        let judge: Judge
        let expires: BootTime
    }

    /// Room for one waiting input per evaluation that 256 clients (one user's `max_contexts_per_user`
    /// by default) may start at once, as scripts and `make bench` do (touch, then evaluate): with the
    /// old 16 for everyone, the 17th concurrent client's touch was refused and its evaluation waited
    /// for a touch until its timeout. Still a bound: 256 judged inputs are a few tens of KiB, and
    /// each expires after the TTL.
    public static let defaultCapacity = 256

    private let items = Mutex<[Item]>([])
    private let capacity: Int
    private let timeToLive: Double
    private let clock: any WallClock

    public init(capacity: Int = SimulatorEventQueue.defaultCapacity, timeToLive: Double, clock: any WallClock) {
        self.capacity = capacity
        self.timeToLive = timeToLive
        self.clock = clock
    }

    /// Inputs waiting for an evaluation, both sensors together.
    public var pending: Int {
        let now = clock.uptime()
        return items.withLock { items in
            items.removeAll { $0.expires.remaining(from: now) == 0 }
            return items.count
        }
    }

    /// Forgets every waiting input.
    public func clear() {
        items.withLock { $0.removeAll() }
    }

    func enqueue(_ modality: BiometricModality, _ judge: @escaping Judge) throws(LocalAuthError) {
        let now = clock.uptime()
        let accepted = items.withLock { items in
            items.removeAll { $0.expires.remaining(from: now) == 0 }
            guard items.count < capacity else { return false }
            items.append(Item(modality: modality, judge: judge, expires: now.advanced(by: timeToLive)))
            return true
        }
        guard accepted else {
            throw LocalAuthError(.limitsExceeded, "The simulator queue already holds \(capacity) events that no evaluation has read; start an evaluation or reset the simulator.")
        }
    }

    /// The oldest fresh input for `modality`, removed from the queue.
    func take(_ modality: BiometricModality) -> Judge? {
        let now = clock.uptime()
        return items.withLock { items in
            items.removeAll { $0.expires.remaining(from: now) == 0 }
            guard let index = items.firstIndex(where: { $0.modality == modality }) else { return nil }
            return items.remove(at: index).judge
        }
    }
}
