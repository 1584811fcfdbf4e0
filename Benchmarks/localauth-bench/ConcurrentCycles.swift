// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport

/// Clients running full evaluation cycles at once, each call of each cycle timed: how many cycles a
/// second they get through and how long the slowest call waited.
struct ConcurrentCycles: Sendable {
    /// Cycles completed per second of wall time, all clients together.
    var cyclesPerSecond: Double
    /// Every call's wall time in µs, by member (CreateContext, Touch, EvaluatePolicy, Invalidate).
    var latencies: [String: [Double]]
    /// Cycles that did not end with the match: the refused Touch or the EvaluatePolicy error, by name.
    var failures: [String: Int]

    var allLatencies: [Double] { latencies.values.flatMap { $0 } }

    /// Runs `perClient` cycles on each of `clients` at once.
    static func measure(_ clients: [Client], perClient: Int) async throws -> ConcurrentCycles {
        let clock = ContinuousClock()
        let start = clock.now
        let parts = try await withThrowingTaskGroup(of: (latencies: [String: [Double]], failures: [String: Int]).self) { group in
            for client in clients {
                group.addTask {
                    var latencies: [String: [Double]] = [:], failures: [String: Int] = [:]
                    for cycle in 0..<perClient {
                        if let failure = try await timedCycle(client, into: &latencies) { failures["\(failure) (a client's cycle \(cycle + 1))", default: 0] += 1 }
                    }
                    return (latencies, failures)
                }
            }
            var all: (latencies: [String: [Double]], failures: [String: Int]) = ([:], [:])
            for try await part in group {
                all.latencies.merge(part.latencies) { $0 + $1 }
                all.failures.merge(part.failures) { $0 + $1 }
            }
            return all
        }
        let elapsed = clock.now - start
        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return ConcurrentCycles(cyclesPerSecond: Double(perClient * clients.count) / wall, latencies: parts.latencies, failures: parts.failures)
    }

    /// CreateContext → Touch → EvaluatePolicy → Invalidate, each call's µs appended under its
    /// member; nil on a match, else the refused Touch's or EvaluatePolicy's error name.
    private static func timedCycle(_ c: Client, into latencies: inout [String: [Double]]) async throws -> String? {
        let clock = ContinuousClock()
        func timed<T>(_ member: String, _ body: () async throws -> T) async rethrows -> T {
            let start = clock.now
            defer {
                let elapsed = clock.now - start
                latencies[member, default: []].append(Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12)
            }
            return try await body()
        }
        let ctx = try await timed("CreateContext") { try await c.createContext() }
        let refused: String? = await timed("Touch") {
            do {
                _ = try await c.connection.call(destination: LocalAuthBusNames.busName, path: LocalAuthBusNames.simulatorPath,
                                                interface: LocalAuthBusNames.simulatorInterface, member: "Touch", arguments: [.string("right-index-finger")])
                return nil
            } catch let error as DBusError {
                return "Touch: " + error.name.rawValue
            } catch {
                return "Touch: \(error)"
            }
        }
        if let refused {
            _ = try await timed("Invalidate") { try await c.context(ctx, "Invalidate") }
            return refused
        }
        let failure: String? = await timed("EvaluatePolicy") {
            do {
                _ = try await c.context(ctx, "EvaluatePolicy", [.uint32(1), .string("bench")], timeout: .seconds(30))
                return nil
            } catch let error as DBusError {
                return error.name.rawValue
            } catch {
                return "\(error)"
            }
        }
        _ = try await timed("Invalidate") { try await c.context(ctx, "Invalidate") }
        return failure
    }

    /// The `fraction` quantile (0…1) of `values`.
    static func quantile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    /// One line per member: count, median, p99 and maximum in ms, and how many calls took over 900 ms.
    var summary: String {
        latencies.keys.sorted().map { member in
            let values = latencies[member]!
            let slow = values.filter { $0 > 900_000 }.count
            return "\(member): \(values.count) calls, median \(Self.ms(Self.quantile(values, 0.5))) ms, p99 \(Self.ms(Self.quantile(values, 0.99))) ms, max \(Self.ms(values.max() ?? .nan)) ms, \(slow) over 0.9 s"
        }.joined(separator: "\n") + (failures.isEmpty ? "" : "\nfailed evaluations: \(failures)")
    }

    private static func ms(_ microseconds: Double) -> String { BenchmarkReport.format(microseconds / 1000, 2) }
}
