// SPDX-License-Identifier: Apache-2.0
// `make bench`: the release localauthd on a private bus, measured against Peer.Ping to itself and two
// C libdbus services (the floors: an echo for one call, a no-work service for the four calls of an
// evaluation cycle), for latency, throughput, evaluation cycles, memory and start-up.
//
// localauth-bench --echo PATH --floor PATH [--daemon PATH] [--json FILE] [--markdown FILE] [--runs N] [--concurrent-only]
//                 [--idle-seconds N] [--churn-contexts N] [--callgrind]
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport

typealias D = DaemonUnderTest

struct Options {
    var echo = ".build/bench-echo"
    var floor = ".build/bench-cycle-floor"
    /// Defaults to the `localauthd` beside this harness; another binary measures an older build.
    var daemon: String?
    var json = "bench/results.json"
    var markdown = "BENCHMARKS.md"
    var runs = 7
    /// Only the concurrent cycles (16 and 64 clients), each call timed, printed; nothing written.
    var concurrentOnly = false
    /// How long each idle daemon (and the C floor beside it) is watched for wake-ups.
    var idleSeconds = 10
    /// Contexts created and invalidated before the idle RSS is read again.
    var churnContexts = 100_000
    /// Also count instructions per cycle with `bench/callgrind-cycle.py` (needs valgrind; minutes).
    var callgrind = false

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--echo": echo = iterator.next() ?? echo
            case "--floor": floor = iterator.next() ?? floor
            case "--daemon": daemon = iterator.next()
            case "--json": json = iterator.next() ?? json
            case "--markdown": markdown = iterator.next() ?? markdown
            case "--runs": runs = iterator.next().flatMap(Int.init) ?? runs
            case "--concurrent-only": concurrentOnly = true
            case "--idle-seconds": idleSeconds = iterator.next().flatMap(Int.init) ?? idleSeconds
            case "--churn-contexts": churnContexts = iterator.next().flatMap(Int.init) ?? churnContexts
            case "--callgrind": callgrind = true
            default:
                FileHandle.standardError.write(Data("usage: localauth-bench --echo PATH --floor PATH [--daemon PATH] [--json FILE] [--markdown FILE] [--runs N] [--concurrent-only] [--idle-seconds N] [--churn-contexts N] [--callgrind]\n".utf8))
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
let binary = options.daemon ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    .deletingLastPathComponent().appendingPathComponent("localauthd").path
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("localauth-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }
let configPath = scratch.appendingPathComponent("localauthd.conf").path
// One fingerprint attempt per evaluation, so a no-match ends the evaluation (the no-match cycle);
// room for the no-match cycles' failures between the match cycles that clear them.
try """
    max_contexts = 20000
    max_contexts_per_client = 20000
    max_contexts_per_user = 20000
    fingerprint_attempts_per_evaluation = 1
    biometry_max_failures = 1000

    """.write(toFile: configPath, atomically: true, encoding: .utf8)
let stateDirectory = scratch.appendingPathComponent("state").path

let formatter = ISO8601DateFormatter()
var report = BenchmarkReport(date: formatter.string(from: Date()), machine: machineDescription(), runs: options.runs)
let bus = try PrivateBus()
defer { bus.stop() }
let watcher = try await bus.connect()

/// Starts a C floor service and waits until it owns `name`; returns it and how long that took.
func startFloor(_ path: String, owning name: String) async throws -> (process: Process, startUp: Duration) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = [bus.address]
    let owned = Inbox<String>()
    let watch = try await watcher.watchNameOwners(name) { if let owner = $0.newOwner { owned.put(owner) } }
    defer { watcher.unsubscribe(watch) }
    let start = clock.now
    try process.run()
    _ = try await owned.next(within: .seconds(10))
    return (process, clock.now - start)
}

/// SIGKILLs a floor service and waits until its name is free again.
func stopFloor(_ process: Process, owning name: String) async throws {
    let gone = Inbox<Bool>()
    let watch = try await watcher.watchNameOwners(name) { if $0.newOwner == nil { gone.put(true) } }
    defer { watcher.unsubscribe(watch) }
    kill(process.processIdentifier, SIGKILL)
    _ = try await gone.next(within: .seconds(10))
    process.waitUntilExit()
}

/// Voluntary context switches of `probe`'s threads over `seconds` of nothing to do: each is a
/// thread that went back to sleep, so the count is the process's wake-ups. Also the threads that
/// woke, by name.
func wakeUps(_ probes: [ProcessProbe], over seconds: Int) async throws -> [(total: Int, threads: String)] {
    let before = probes.map { Dictionary($0.contextSwitchesByThread().map { ($0.thread, $0.voluntary) }, uniquingKeysWith: +) }
    try await Task.sleep(for: .seconds(seconds))
    return zip(probes, before).map { probe, before in
        let woke = probe.contextSwitchesByThread().map { ($0.thread, $0.voluntary - (before[$0.thread] ?? 0)) }.filter { $0.1 > 0 }
        return (woke.reduce(0) { $0 + $1.1 }, woke.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
    }
}

let floorName = "org.localauth.BenchFloor"
// Start-up, idle memory and idle wake-ups, a fresh daemon each run over the same state directory,
// and a fresh C floor (its start-up); the floor's wake-ups are counted over the same seconds.
var startUp = Sample(), floorStartUp = Sample(), startUpRatio = Sample(), idle = Sample(), idleAnon = Sample()
var idleWakeUps = Sample(), floorWakeUps = Sample(), floorIdle = Sample()
let idleRuns = min(options.runs, 5)
for run in 0..<options.runs {
    let floor = try await startFloor(options.floor, owning: floorName)
    let daemon = try await BenchDaemon(binary: binary, bus: bus, watcher: watcher, stateDirectory: stateDirectory, configPath: configPath)
    startUp.add(seconds(daemon.startUp) * 1000)
    floorStartUp.add(seconds(floor.startUp) * 1000)
    startUpRatio.add(seconds(daemon.startUp) / seconds(floor.startUp))
    // Once settled: when the name is owned the daemon is still finishing its start (READY=1, the log line).
    idle.add(Double(try await settledResidentKiB(daemon.probe)) / 1024)
    idleAnon.add(Double(daemon.probe.statusKiB("RssAnon")) / 1024)
    let floorProbe = ProcessProbe(pid: floor.process.processIdentifier)
    floorIdle.add(Double(floorProbe.residentKiB) / 1024)
    if run < idleRuns {
        let woke = try await wakeUps([daemon.probe, floorProbe], over: options.idleSeconds)
        idleWakeUps.add(Double(woke[0].total)); floorWakeUps.add(Double(woke[1].total))
        print("idle \(options.idleSeconds) s: localauthd woke \(woke[0].total) times (\(woke[0].threads)), the C floor \(woke[1].total)")
    }
    try await daemon.stop(watcher: watcher)
    try await stopFloor(floor.process, owning: floorName)
}
print("start-up, idle memory and wake-ups measured")

let daemon = try await BenchDaemon(binary: binary, bus: bus, watcher: watcher, stateDirectory: stateDirectory, configPath: configPath)
_ = try await settledResidentKiB(daemon.probe)
report.idleMemoryByMapping = daemon.probe.residentByMapping().prefix(8).map { "\($0.name) \($0.kib)" }
let echoProcess = try await startFloor(options.echo, owning: "org.localauth.BenchEcho").process
defer { kill(echoProcess.processIdentifier, SIGKILL) }
let floorProcess = try await startFloor(options.floor, owning: floorName).process
defer { kill(floorProcess.processIdentifier, SIGKILL) }

let client = try await Client(bus)
try await client.setUp(passcode: "bench-passcode", fingers: ["right-index-finger"])
let context = try await client.createContext()

/// `count` fresh clients of the daemon.
func connectClients(_ count: Int) async throws -> [Client] {
    try await withThrowingTaskGroup(of: Client.self) { group in
        for _ in 0..<count { group.addTask { try await Client(bus) } }
        return try await group.reduce(into: [Client]()) { $0.append($1) }
    }
}

if options.concurrentOnly {
    for count in [16, 64] {
        let many = try await connectClients(count)
        for run in 0..<options.runs {
            // As in the full run: the 1st client's no-matches (failures saved durably) come first.
            for _ in 0..<100 { try await noMatchCycle(client) }
            let result = try await ConcurrentCycles.measure(many, perClient: 25)
            let pending = try await client.connection.call(destination: LocalAuthBusNames.busName, path: LocalAuthBusNames.simulatorPath,
                                                           interface: "org.freedesktop.DBus.Properties", member: "Get",
                                                           arguments: [.string(LocalAuthBusNames.simulatorInterface), .string("Pending")])
            print("\(count) clients, run \(run + 1): \(BenchmarkReport.format(result.cyclesPerSecond, 0)) cycles/s, simulator inputs left unread: \(pending)\n\(result.summary)")
        }
        for c in many { c.connection.close() }
    }
    try await daemon.stop(watcher: watcher)
    // exit() skips the defers above: the floors would outlive the harness (and hold its output pipe).
    kill(echoProcess.processIdentifier, SIGKILL)
    kill(floorProcess.processIdentifier, SIGKILL)
    exit(0)
}

// Round trips from one client, the three kinds interleaved within each run.
let calls = 2000
var canEvaluate = Sample(), ping = Sample(), echo = Sample(), versusPing = Sample(), versusFloor = Sample(), canCPU = Sample()
for _ in 0..<options.runs {
    let cpuBefore = daemon.probe.cpu
    let can = try await perCall(calls) { _ = try await client.context(context, "CanEvaluatePolicy", [.uint32(2)]) }
    let cpu = daemon.probe.cpu.seconds(since: cpuBefore) / Double(calls) * 1e6
    let peer = try await perCall(calls) {
        _ = try await client.connection.call(destination: LocalAuthBusNames.busName, path: LocalAuthBusNames.managerPath, interface: "org.freedesktop.DBus.Peer", member: "Ping")
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
/// The bus daemon's pid (dbus-daemon answers GetConnectionUnixProcessID for its own name).
let busProbe = try await watcher.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                      interface: "org.freedesktop.DBus", member: "GetConnectionUnixProcessID",
                                      arguments: [.string("org.freedesktop.DBus")]).first?.uint32.map { ProcessProbe(pid: Int32($0)) }
/// This harness's own CPU time (the 16 clients), in seconds.
func harnessCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
var throughput = Sample(), daemonShare = Sample(), busShare = Sample(), clientShare = Sample()
for _ in 0..<options.runs {
    let perClient = 500
    let start = clock.now
    let daemonBefore = daemon.probe.cpu, busBefore = busProbe?.cpu, clientsBefore = harnessCPUSeconds()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for (c, ctx) in clients {
            group.addTask { for _ in 0..<perClient { _ = try await c.context(ctx, "CanEvaluatePolicy", [.uint32(2)]) } }
        }
        try await group.waitForAll()
    }
    let wall = seconds(clock.now - start)
    throughput.add(Double(perClient * clients.count) / wall)
    // Shares of the whole machine (all cores): who uses the CPU while 16 clients saturate it.
    daemonShare.add(daemon.probe.cpu.seconds(since: daemonBefore) / (wall * cores) * 100)
    busShare.add((busBefore.flatMap { before in busProbe?.cpu.seconds(since: before) } ?? 0) / (wall * cores) * 100)
    clientShare.add((harnessCPUSeconds() - clientsBefore) / (wall * cores) * 100)
}
print("throughput measured")

/// CreateContext → Touch (queued) → EvaluatePolicy → reply → Invalidate, against `destination`
/// (the daemon, or the C floor that answers the same four calls with no work). Returns the D-Bus
/// error name EvaluatePolicy ended with, nil on success.
@discardableResult
func evaluationCycle(_ c: Client, destination: String = LocalAuthBusNames.busName, finger: String = "right-index-finger") async throws -> String? {
    let manager = try await c.connection.call(destination: destination, path: LocalAuthBusNames.managerPath, interface: LocalAuthBusNames.managerInterface,
                                              member: "CreateContext", arguments: [.vardict([:])])
    guard let ctx = manager.first?.objectPath else { throw BenchError("CreateContext returned no context") }
    _ = try await c.connection.call(destination: destination, path: LocalAuthBusNames.simulatorPath, interface: LocalAuthBusNames.simulatorInterface,
                                    member: "Touch", arguments: [.string(finger)])
    var failure: String?
    do {
        _ = try await c.connection.call(destination: destination, path: ctx, interface: LocalAuthBusNames.contextInterface,
                                        member: "EvaluatePolicy", arguments: [.uint32(1), .string("bench")])
    } catch let error as DBusError {
        failure = error.name.rawValue
    }
    _ = try await c.connection.call(destination: destination, path: ctx, interface: LocalAuthBusNames.contextInterface, member: "Invalidate")
    return failure
}

/// The same cycle with a finger that is not enrolled: the one attempt the bench configuration allows
/// is a no-match (counted, saved durably), so EvaluatePolicy ends with AuthenticationFailed.
func noMatchCycle(_ c: Client) async throws {
    let failure = try await evaluationCycle(c, finger: "left-little-finger")
    guard failure?.hasSuffix(".AuthenticationFailed") == true else {
        throw BenchError("a no-match cycle ended with \(failure ?? "success"), not AuthenticationFailed")
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The daemon's CPU per cycle in µs and the wall time per cycle in µs, over `count` cycles.
func timedCycles(_ count: Int, _ cycle: () async throws -> Void) async throws -> (wall: Double, cpu: Double) {
    let cpuBefore = daemon.probe.cpu
    let wall = try await perCall(count, cycle)
    return (wall, daemon.probe.cpu.seconds(since: cpuBefore) / Double(count) * 1e6)
}

// Match cycles, floor cycles and no-match cycles interleaved within each run; ratios within a run.
// Match and floor cycles alternate in blocks of 100, each kind first in every other pair, so that
// a change in the machine's load during a run, and whatever one kind leaves behind for the next
// block, weigh on both alike. 1000 cycles per figure and run; CPU is each thread's run time from
// /proc/PID/task/TID/schedstat, in nanoseconds (`CPUReading`), read once around all of a run's
// blocks; work the daemon defers past its blocks is counted as its own.
let cycleCount = 1000, cycleBlock = 100, noMatchCount = 300
precondition(cycleCount % cycleBlock == 0)
var cycleWall = Sample(), floorWall = Sample(), cycleRatio = Sample(), cycleCPU = Sample(), cycleAdded = Sample(), floorCPU = Sample()
var noMatchWall = Sample(), noMatchRatio = Sample(), noMatchCPU = Sample(), cyclesSixteen = Sample(), cycleCPURatio = Sample()
var slowestSixteen = Sample(), failedSixteen = Sample(), cyclesSixtyFour = Sample(), slowestSixtyFour = Sample(), failedSixtyFour = Sample()
let manyClients = try await connectClients(64)
let floorProbe = ProcessProbe(pid: floorProcess.processIdentifier)
for _ in 0..<options.runs {
    let (daemonCPUBefore, floorCPUBefore) = (daemon.probe.cpu, floorProbe.cpu)
    var matchTotal = 0.0, floorTotal = 0.0
    for pair in 0..<(cycleCount / cycleBlock) {
        for matchTurn in pair.isMultiple(of: 2) ? [true, false] : [false, true] {
            if matchTurn {
                matchTotal += try await perCall(cycleBlock) {
                    if let failure = try await evaluationCycle(client) { throw BenchError("a match cycle failed: \(failure)") }
                }
            } else {
                floorTotal += try await perCall(cycleBlock) { try await evaluationCycle(client, destination: "org.localauth.BenchFloor") }
            }
        }
    }
    let blocks = Double(cycleCount / cycleBlock)
    let match = (wall: matchTotal / blocks, cpu: daemon.probe.cpu.seconds(since: daemonCPUBefore) / Double(cycleCount) * 1e6)
    let floor = floorTotal / blocks
    floorCPU.add(floorProbe.cpu.seconds(since: floorCPUBefore) / Double(cycleCount) * 1e6)
    let noMatch = try await timedCycles(noMatchCount) { try await noMatchCycle(client) }
    cycleWall.add(match.wall); floorWall.add(floor); cycleRatio.add(match.wall / floor); cycleCPU.add(match.cpu)
    cycleAdded.add(match.wall - floor)
    cycleCPURatio.add(match.cpu / floorCPU.values.last!)
    noMatchWall.add(noMatch.wall); noMatchRatio.add(noMatch.wall / floor); noMatchCPU.add(noMatch.cpu)

    let sixteen = try await ConcurrentCycles.measure(clients.map(\.0), perClient: 25)
    cyclesSixteen.add(sixteen.cyclesPerSecond)
    slowestSixteen.add((sixteen.allLatencies.max() ?? .nan) / 1000)
    failedSixteen.add(Double(sixteen.failures.values.reduce(0, +)))
    let sixtyFour = try await ConcurrentCycles.measure(manyClients, perClient: 25)
    cyclesSixtyFour.add(sixtyFour.cyclesPerSecond)
    slowestSixtyFour.add((sixtyFour.allLatencies.max() ?? .nan) / 1000)
    failedSixtyFour.add(Double(sixtyFour.failures.values.reduce(0, +)))
    print("16 clients: \(sixteen.summary)\n64 clients: \(sixtyFour.summary)")
}
for c in manyClients { c.connection.close() }
print("evaluation cycles measured")

/// The 95th percentile of `latencies`, in µs.
func percentile95(_ latencies: [Double]) -> Double {
    let sorted = latencies.sorted()
    return sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.95))]
}

/// CanEvaluatePolicy round trips of one client, each timed: at least 50, then until `done()` is true.
func timedCalls(_ c: Client, _ ctx: String, until done: @Sendable () -> Bool) async throws -> [Double] {
    var latencies: [Double] = []
    while latencies.count < 50 || !done() {
        let start = clock.now
        _ = try await c.context(ctx, "CanEvaluatePolicy", [.uint32(2)])
        latencies.append(seconds(clock.now - start) * 1e6)
    }
    return latencies
}

// Another client's calls while one client's no-matches are saved durably: each save (fsync) runs
// on the engine's actor, so the 95th percentile shows how long a save holds everyone else up.
var quietP95 = Sample(), stalledP95 = Sample()
let (bystander, bystanderContext) = clients[0]
for _ in 0..<options.runs {
    quietP95.add(percentile95(try await timedCalls(bystander, bystanderContext) { true }))
    let finished = Inbox<Bool>()
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
        group.addTask {
            defer { finished.put(true) }
            for _ in 0..<100 { try await noMatchCycle(client) }
            return []
        }
        group.addTask { try await timedCalls(bystander, bystanderContext) { !finished.received.isEmpty } }
        var all: [Double] = []
        for try await part in group { all += part }
        return all
    }
    stalledP95.add(percentile95(latencies))
}
print("stalls measured")

/// Reads RSS every 50 ms until it has not changed for 250 ms (at most 4 s): the daemon frees
/// dropped contexts on its own queue after it sees the clients leave, and gives the freed heap
/// back 100 ms after that (`HeapTrimmer`); nothing on the bus says when it is done.
func settledResidentKiB(_ probe: ProcessProbe) async throws -> Int {
    var last = probe.residentKiB, unchanged = 0
    for _ in 0..<80 {
        try await Task.sleep(for: .milliseconds(50))
        let now = probe.residentKiB
        unchanged = now == last ? unchanged + 1 : 0
        if unchanged == 5 { return now }
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
var perContext = Sample(), open = Sample(), dropped = Sample(), droppedTwice = Sample(), churnGrowth = Sample()
for _ in 0..<min(options.runs, 3) {
    let fresh = try await BenchDaemon(binary: binary, bus: bus, watcher: watcher, stateDirectory: stateDirectory, configPath: configPath)
    let idleKiB = try await settledResidentKiB(fresh.probe)
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
    let twiceKiB = try await settledResidentKiB(fresh.probe)
    droppedTwice.add(Double(twiceKiB) / 1024)
    churnGrowth.add(Double(twiceKiB - idleKiB) / 1024)
    warm.connection.close()
    try await fresh.stop(watcher: watcher)
}

/// Each of `clients` creates and invalidates `count / clients.count` contexts, one after the other.
func churnContexts(_ count: Int, by clients: [Client]) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for c in clients {
            group.addTask {
                for _ in 0..<(count / clients.count) { _ = try await c.context(try await c.createContext(), "Invalidate") }
            }
        }
        try await group.waitForAll()
    }
}

// RSS of an idle daemon before and after `churnContexts` contexts were created and invalidated
// (the clients still connected, then gone), a fresh daemon per run. Flat is judged from the RSS
// after the first 1 000 contexts: by then the pages of the code those calls run are resident
// (file-backed, shared, and the same for one context as for a million), and what grows after
// that grows with the number of contexts.
let warmContexts = 1_000
var churnIdle = Sample(), churnWarm = Sample(), afterChurn = Sample(), afterChurnLeft = Sample(), churnRatio = Sample()
let floorIdleKiB = Double(ProcessProbe(pid: floorProcess.processIdentifier).residentKiB)
var floorResident = Sample()
for _ in 0..<min(options.runs, 5) {
    let fresh = try await BenchDaemon(binary: binary, bus: bus, watcher: watcher, stateDirectory: stateDirectory, configPath: configPath)
    churnIdle.add(Double(try await settledResidentKiB(fresh.probe)) / 1024)
    var churners: [Client] = []
    for _ in 0..<10 { churners.append(try await Client(bus)) }
    try await churnContexts(warmContexts, by: churners)
    churnWarm.add(Double(try await settledResidentKiB(fresh.probe)) / 1024)
    try await churnContexts(options.churnContexts - warmContexts, by: churners)
    let after = try await settledResidentKiB(fresh.probe)
    afterChurn.add(Double(after) / 1024)
    churnRatio.add(Double(after) / floorIdleKiB)
    floorResident.add(floorIdleKiB / 1024)
    for c in churners { c.connection.close() }
    afterChurnLeft.add(Double(try await settledResidentKiB(fresh.probe)) / 1024)
    try await fresh.stop(watcher: watcher)
}
print("memory measured")

/// `bench/callgrind-cycle.py`'s user-space instructions per cycle of `binary`.
func instructionsPerCycle(_ binary: String, floor: Bool) throws -> Double {
    let script = Process()
    let output = Pipe()
    script.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    let profile = scratch.appendingPathComponent("callgrind.out").path
    script.arguments = ["bench/callgrind-cycle.py", binary, "--out", profile] + (floor ? ["--floor"] : [])
    script.standardOutput = output
    try script.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    script.waitUntilExit()
    guard script.terminationStatus == 0,
          let count = text.split(separator: "\n").last?.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else {
        throw BenchError("bench/callgrind-cycle.py \(binary) failed: \(text)")
    }
    return count
}
var instructions = Sample(), floorInstructions = Sample(), instructionRatio = Sample()
if options.callgrind {
    for _ in 0..<5 {
        let own = try instructionsPerCycle(binary, floor: false), floor = try instructionsPerCycle(options.floor, floor: true)
        instructions.add(own); floorInstructions.add(floor); instructionRatio.add(own / floor)
    }
    print("instructions per cycle counted")
}

report.add("CanEvaluatePolicy round trip, 1 client", canEvaluate, "µs")
report.add("Peer.Ping round trip to localauthd", ping, "µs")
report.add("C libdbus echo round trip (floor)", echo, "µs")
report.add("CanEvaluatePolicy ÷ Peer.Ping", versusPing, "×", decimals: 2)
report.add("CanEvaluatePolicy ÷ C floor", versusFloor, "×", goal: "≤ 1.2×", decimals: 2)
report.add("daemon CPU per CanEvaluatePolicy", canCPU, "µs")
report.add("CanEvaluatePolicy throughput, 16 clients", throughput, "calls/s", decimals: 0)
report.add("  daemon CPU share at that saturation (of all cores)", daemonShare, "%")
report.add("  dbus-daemon CPU share", busShare, "%")
report.add("  16 clients' (harness) CPU share", clientShare, "%")
report.add("evaluation cycle (match), 1 client", cycleWall, "µs")
report.add("evaluation cycle of the C floor (4 calls, no work)", floorWall, "µs")
report.add("evaluation cycle (match) ÷ C floor", cycleRatio, "×", goal: "≤ 1.2×", decimals: 2)
report.add("  what the daemon adds to the floor's cycle (match − floor)", cycleAdded, "µs")
report.add("daemon CPU per evaluation cycle (match)", cycleCPU, "µs", goal: "≤ 150 µs")
report.add("  the C floor's CPU per evaluation cycle", floorCPU, "µs")
report.add("evaluation cycle (no-match, saved durably), 1 client", noMatchWall, "µs")
report.add("evaluation cycle (no-match) ÷ C floor", noMatchRatio, "×", decimals: 2)
report.add("daemon CPU per evaluation cycle (no-match)", noMatchCPU, "µs")
report.add("evaluation cycles, 16 clients", cyclesSixteen, "cycles/s", decimals: 0)
report.add("  slowest call of those cycles", slowestSixteen, "ms", goal: "≤ 1000 ms")
report.add("  cycles that did not match (of 400)", failedSixteen, "", goal: "0", decimals: 0)
report.add("evaluation cycles, 64 clients", cyclesSixtyFour, "cycles/s", decimals: 0)
report.add("  slowest call of those cycles", slowestSixtyFour, "ms")
report.add("  cycles that did not match (of 1600)", failedSixtyFour, "", goal: "0", decimals: 0)
report.add("CanEvaluatePolicy p95 of a 2nd client, quiet", quietP95, "µs")
report.add("  the same while a 1st client's no-matches are saved", stalledP95, "µs")
report.add("idle RSS after start", idle, "MiB", goal: "≤ 9 MiB", decimals: 2)
report.add("idle RSS after start, anonymous part", idleAnon, "MiB", decimals: 2)
var afterSample = Sample(); afterSample.add(afterBenchmarks)
report.add("RSS after all the latency and cycle runs above", afterSample, "MiB", decimals: 2)
report.add("RSS with 10 000 open contexts", open, "MiB", decimals: 2)
report.add("memory per open context", perContext, "bytes", goal: "< 2048 bytes", decimals: 0)
report.add("RSS after 10 000 contexts were dropped", dropped, "MiB", decimals: 2)
report.add("RSS after another 10 000 came and went", droppedTwice, "MiB", decimals: 2)
report.add("RSS after 2 × 10 000 came and went − fresh idle", churnGrowth, "MiB", goal: "≤ 2 MiB", decimals: 2)
report.add("start-up: process start → bus name owned", startUp, "ms")
report.add("idle wake-ups over \(options.idleSeconds) s", idleWakeUps, "", goal: "0", decimals: 0)
report.add("RSS after \(options.churnContexts) contexts created and invalidated", afterChurn, "MiB", goal: "≤ 9 MiB", decimals: 2)
report.add("  the same after those clients left", afterChurnLeft, "MiB", decimals: 2)
report.add("  idle RSS of those daemons before", churnIdle, "MiB", decimals: 2)
report.add("  their RSS after the first \(warmContexts) contexts", churnWarm, "MiB", decimals: 2)
report.add("  growth from the first \(warmContexts) contexts to all \(options.churnContexts)", afterChurn.minus(churnWarm), "MiB", goal: "≤ 0.5 MiB", decimals: 2)

if options.callgrind {
    report.target("instructions per cycle", "callgrind", daemon: instructions, floor: floorInstructions, ratio: instructionRatio, goal: "≤ 1.6×",
                  met: instructionRatio.median <= 1.6)
}
report.target("daemon CPU per cycle", "µs", daemon: cycleCPU, floor: floorCPU, ratio: cycleCPURatio, goal: "≤ 1.8×", met: cycleCPURatio.median <= 1.8)
report.target("cycle time (the harness's libdbus client)", "µs", daemon: cycleWall, floor: floorWall, ratio: cycleRatio, goal: "≤ 1.12×",
              met: cycleRatio.median <= 1.12)
report.target("start-up to name owned", "ms", daemon: startUp, floor: floorStartUp, ratio: startUpRatio, goal: "≤ 2×", met: startUpRatio.median <= 2)
report.target("wake-ups in \(options.idleSeconds) s idle", "count", daemon: idleWakeUps, floor: floorWakeUps, ratio: nil, goal: "0",
              met: idleWakeUps.maximum == 0)
report.target("idle RSS after start", "MiB", daemon: idle, floor: floorIdle, ratio: nil, goal: "≤ 9 MiB", met: idle.median <= 9)
report.target("RSS after \(options.churnContexts) contexts, idle", "MiB", daemon: afterChurn, floor: floorResident, ratio: churnRatio, goal: "≤ 9 MiB, flat",
              met: afterChurn.median <= 9 && afterChurn.minus(churnWarm).median <= 0.5)
report.target("slowest call, 16 clients' cycles", "ms", daemon: slowestSixteen, floor: Sample(), ratio: nil, goal: "≤ 1000 ms",
              met: slowestSixteen.maximum <= 1000)
report.target("cycles that did not complete, 64 clients (of 1600)", "count", daemon: failedSixtyFour, floor: Sample(), ratio: nil, goal: "0",
              met: failedSixtyFour.maximum == 0)

print("\n" + report.markdownTable + "\n")
print("idle daemon's largest mappings (KiB): " + report.idleMemoryByMapping.joined(separator: ", "))
try FileManager.default.createDirectory(at: URL(fileURLWithPath: options.json).deletingLastPathComponent(), withIntermediateDirectories: true)
try report.splice(into: options.markdown)
try report.writeJSON(to: options.json)
print("wrote \(options.json) and \(options.markdown)")
