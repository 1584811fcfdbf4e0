// SPDX-License-Identifier: Apache-2.0
// `make bench`: the release localauthd on a private bus, measured against Peer.Ping to itself and a
// C libdbus echo service (the floor), for latency, throughput, evaluation cycles, memory and start-up.
//
// localauth-bench --echo PATH [--json FILE] [--markdown FILE] [--runs N]
import Foundation
import LocalAuthDBus
import LocalAuthTestSupport

typealias D = DaemonUnderTest

struct Options {
    var echo = ".build/bench-echo"
    var json = "bench/results.json"
    var markdown = "BENCHMARKS.md"
    var runs = 7

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--echo": echo = iterator.next() ?? echo
            case "--json": json = iterator.next() ?? json
            case "--markdown": markdown = iterator.next() ?? markdown
            case "--runs": runs = iterator.next().flatMap(Int.init) ?? runs
            default:
                FileHandle.standardError.write(Data("usage: localauth-bench --echo PATH [--json FILE] [--markdown FILE] [--runs N]\n".utf8))
                exit(64)
            }
        }
    }
}

let clock = ContinuousClock()

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Runs `body` `count` times in a row and returns the mean wall time per call in µs.
func perCall(_ count: Int, _ body: () async throws -> Void) async throws -> Double {
    let start = clock.now
    for _ in 0..<count { try await body() }
    return seconds(clock.now - start) / Double(count) * 1e6
}

func machineDescription() -> String {
    let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
        .split(separator: "\n").first { $0.hasPrefix("model name") }?
        .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
    let memoryKiB = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8))?
        .split(separator: "\n").first { $0.hasPrefix("MemTotal") }?
        .split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) } ?? 0
    let kernel = (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?
        .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    return "\(ProcessInfo.processInfo.activeProcessorCount) × \(cpu), \(memoryKiB / 1024) MiB RAM, Linux \(kernel)"
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    .deletingLastPathComponent().appendingPathComponent("localauthd").path
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("localauth-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }
let configPath = scratch.appendingPathComponent("localauthd.conf").path
try "max_contexts = 20000\nmax_contexts_per_client = 20000\nmax_contexts_per_user = 20000\n".write(toFile: configPath, atomically: true, encoding: .utf8)
let stateDirectory = scratch.appendingPathComponent("state").path

let formatter = ISO8601DateFormatter()
var report = BenchmarkReport(date: formatter.string(from: Date()), machine: machineDescription(), runs: options.runs)
let bus = try PrivateBus()
defer { bus.stop() }
let watcher = try await bus.connect()

// Start-up and idle memory, a fresh daemon each run over the same state directory.
var startUp = Sample(), idle = Sample(), idleAnon = Sample()
for _ in 0..<options.runs {
    let daemon = try await BenchDaemon(binary: binary, bus: bus, watcher: watcher, stateDirectory: stateDirectory, configPath: configPath)
    startUp.add(seconds(daemon.startUp) * 1000)
    idle.add(Double(daemon.probe.residentKiB) / 1024)
    idleAnon.add(Double(daemon.probe.statusKiB("RssAnon")) / 1024)
    try await daemon.stop(watcher: watcher)
}
print("start-up and idle memory measured")

let daemon = try await BenchDaemon(binary: binary, bus: bus, watcher: watcher, stateDirectory: stateDirectory, configPath: configPath)
report.idleMemoryByMapping = daemon.probe.residentByMapping().prefix(8).map { "\($0.name) \($0.kib)" }
let echoProcess = Process()
echoProcess.executableURL = URL(fileURLWithPath: options.echo)
echoProcess.arguments = [bus.address]
let echoOwned = Inbox<String>()
let echoWatch = try await watcher.watchNameOwners("org.localauth.BenchEcho") { if let owner = $0.newOwner { echoOwned.put(owner) } }
try echoProcess.run()
_ = try await echoOwned.next(within: .seconds(10))
watcher.unsubscribe(echoWatch)
defer { kill(echoProcess.processIdentifier, SIGKILL) }

let client = try await Client(bus)
try await client.setUp(passcode: "bench-passcode", fingers: ["right-index-finger"])
let context = try await client.createContext()

// Round trips from one client, the three kinds interleaved within each run.
let calls = 2000
var canEvaluate = Sample(), ping = Sample(), echo = Sample(), versusPing = Sample(), versusFloor = Sample(), canCPU = Sample()
for _ in 0..<options.runs {
    let cpuBefore = daemon.probe.cpuSeconds
    let can = try await perCall(calls) { _ = try await client.context(context, "CanEvaluatePolicy", [.uint32(2)]) }
    let cpu = (daemon.probe.cpuSeconds - cpuBefore) / Double(calls) * 1e6
    let peer = try await perCall(calls) {
        _ = try await client.connection.call(destination: D.busName, path: D.managerPath, interface: "org.freedesktop.DBus.Peer", member: "Ping")
    }
    let floor = try await perCall(calls) {
        _ = try await client.connection.call(destination: "org.localauth.BenchEcho", path: "/org/localauth/BenchEcho",
                                             interface: "org.localauth.BenchEcho", member: "CanEvaluatePolicy", arguments: [.uint32(2)])
    }
    canEvaluate.add(can); ping.add(peer); echo.add(floor); canCPU.add(cpu)
    versusPing.add(can / peer); versusFloor.add(can / floor)
}
print("round trips measured")

// CanEvaluatePolicy throughput, 16 clients each with its own context.
let clients = try await withThrowingTaskGroup(of: (Client, String).self) { group in
    for _ in 0..<16 { group.addTask { let c = try await Client(bus); return (c, try await c.createContext()) } }
    var all: [(Client, String)] = []
    for try await pair in group { all.append(pair) }
    return all
}
var throughput = Sample()
for _ in 0..<options.runs {
    let perClient = 500
    let start = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for (c, ctx) in clients {
            group.addTask { for _ in 0..<perClient { _ = try await c.context(ctx, "CanEvaluatePolicy", [.uint32(2)]) } }
        }
        try await group.waitForAll()
    }
    throughput.add(Double(perClient * clients.count) / seconds(clock.now - start))
}
print("throughput measured")

/// CreateContext → Touch (queued) → EvaluatePolicy → reply → Invalidate.
func evaluationCycle(_ c: Client) async throws {
    let ctx = try await c.createContext()
    try await c.simulator("Touch", [.string("right-index-finger")])
    _ = try await c.context(ctx, "EvaluatePolicy", [.uint32(1), .string("bench")])
    _ = try await c.context(ctx, "Invalidate")
}

var cyclesOne = Sample(), cyclesSixteen = Sample(), cycleCPU = Sample()
for _ in 0..<options.runs {
    let count = 200
    let cpuBefore = daemon.probe.cpuSeconds
    let start = clock.now
    for _ in 0..<count { try await evaluationCycle(client) }
    cyclesOne.add(Double(count) / seconds(clock.now - start))
    cycleCPU.add((daemon.probe.cpuSeconds - cpuBefore) / Double(count) * 1000)

    let perClient = 25
    let startMany = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for (c, _) in clients { group.addTask { for _ in 0..<perClient { try await evaluationCycle(c) } } }
        try await group.waitForAll()
    }
    cyclesSixteen.add(Double(perClient * clients.count) / seconds(clock.now - startMany))
}
print("evaluation cycles measured")

/// Reads RSS until two readings 50 ms apart agree (at most 2 s): the daemon frees dropped contexts
/// on its own queue after it sees the clients leave, and nothing on the bus says when it is done.
func settledResidentKiB(_ probe: ProcessProbe) async throws -> Int {
    var last = probe.residentKiB
    for _ in 0..<40 {
        try await Task.sleep(for: .milliseconds(50))
        let now = probe.residentKiB
        if now == last { return now }
        last = now
    }
    return last
}

/// 10 clients open 1000 contexts each; returns the clients, which hold the contexts until they leave.
func openContexts(_ count: Int) async throws -> [Client] {
    try await withThrowingTaskGroup(of: Client.self) { group in
        for _ in 0..<10 {
            group.addTask {
                let c = try await Client(bus)
                for _ in 0..<(count / 10) { _ = try await c.createContext() }
                return c
            }
        }
        var all: [Client] = []
        for try await holder in group { all.append(holder) }
        return all
    }
}

// Memory on a fresh daemon per run: 10 000 open contexts, then after those clients left, then
// after a second 10 000 came and went (what stays is retained, not merely not yet reused).
let contextCount = 10_000
let afterBenchmarks = Double(try await settledResidentKiB(daemon.probe)) / 1024
try await daemon.stop(watcher: watcher)
var perContext = Sample(), open = Sample(), dropped = Sample(), droppedTwice = Sample()
for _ in 0..<min(options.runs, 3) {
    let fresh = try await BenchDaemon(binary: binary, bus: bus, watcher: watcher, stateDirectory: stateDirectory, configPath: configPath)
    let warm = try await Client(bus)
    _ = try await warm.context(try await warm.createContext(), "CanEvaluatePolicy", [.uint32(2)])
    let before = try await settledResidentKiB(fresh.probe)
    let holders = try await openContexts(contextCount)
    let withContexts = try await settledResidentKiB(fresh.probe)
    open.add(Double(withContexts) / 1024)
    perContext.add(Double(withContexts - before) * 1024 / Double(contextCount))
    for holder in holders { holder.connection.close() }
    dropped.add(Double(try await settledResidentKiB(fresh.probe)) / 1024)
    for holder in try await openContexts(contextCount) { holder.connection.close() }
    droppedTwice.add(Double(try await settledResidentKiB(fresh.probe)) / 1024)
    warm.connection.close()
    try await fresh.stop(watcher: watcher)
}
print("memory measured")

report.add("CanEvaluatePolicy round trip, 1 client", canEvaluate, "µs")
report.add("Peer.Ping round trip to localauthd", ping, "µs")
report.add("C libdbus echo round trip (floor)", echo, "µs")
report.add("CanEvaluatePolicy ÷ Peer.Ping", versusPing, "×", decimals: 2)
report.add("CanEvaluatePolicy ÷ C floor", versusFloor, "×", goal: "≤ 1.2×", decimals: 2)
report.add("daemon CPU per CanEvaluatePolicy", canCPU, "µs")
report.add("CanEvaluatePolicy throughput, 16 clients", throughput, "calls/s", decimals: 0)
report.add("evaluation cycles, 1 client", cyclesOne, "cycles/s", decimals: 0)
report.add("evaluation cycles, 16 clients", cyclesSixteen, "cycles/s", decimals: 0)
report.add("daemon CPU per evaluation cycle", cycleCPU, "ms", goal: "well under 1 ms", decimals: 3)
report.add("idle RSS after start", idle, "MiB", goal: "< 9 MiB", decimals: 2)
report.add("idle RSS after start, anonymous part", idleAnon, "MiB", decimals: 2)
var afterSample = Sample(); afterSample.add(afterBenchmarks)
report.add("RSS after all the latency and cycle runs above", afterSample, "MiB", decimals: 2)
report.add("RSS with 10 000 open contexts", open, "MiB", decimals: 2)
report.add("memory per open context", perContext, "bytes", goal: "< 2048 bytes", decimals: 0)
report.add("RSS after 10 000 contexts were dropped", dropped, "MiB", decimals: 2)
report.add("RSS after another 10 000 came and went", droppedTwice, "MiB", decimals: 2)
report.add("start-up: process start → bus name owned", startUp, "ms")

print("\n" + report.markdownTable + "\n")
print("idle daemon's largest mappings (KiB): " + report.idleMemoryByMapping.joined(separator: ", "))
try FileManager.default.createDirectory(at: URL(fileURLWithPath: options.json).deletingLastPathComponent(), withIntermediateDirectories: true)
try report.writeJSON(to: options.json)
try report.splice(into: options.markdown)
print("wrote \(options.json) and \(options.markdown)")
