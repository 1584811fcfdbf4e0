// SPDX-License-Identifier: Apache-2.0
// `make bench` (after localauth-bench): what a biometric match costs through a provider process
// (the Python reference provider, Examples/providers/) against the built-in fingerprint
// simulator, in the same run, on two private buses with the release localauthd, blocks of the two
// interleaved so that machine load falls on both alike.
//
// localauth-provider-bench [--json FILE] [--cycles N] [--blocks N]
//
// One cycle (on a fresh context): EvaluatePolicy(biometrics) is sent; once the sensor listens (the context's Prompt
// for the simulator, the provider's Listening signal for the provider) the enrolled finger
// touches it; the cycle ends with EvaluatePolicy's reply. "touch → reply" is the part a sensor
// event costs: for the provider it includes the provider's ReportAttempt call to localauthd.
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport

typealias D = DaemonUnderTest
typealias P = ReferenceProvider

var jsonPath = "bench/provider-results.json"
var cycles = 100
var blocks = 5
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--json": jsonPath = arguments.next() ?? jsonPath
    case "--cycles": cycles = arguments.next().flatMap(Int.init) ?? cycles
    case "--blocks": blocks = arguments.next().flatMap(Int.init) ?? blocks
    default:
        FileHandle.standardError.write(Data("usage: localauth-provider-bench [--json FILE] [--cycles N] [--blocks N]\n".utf8))
        exit(64)
    }
}

let clock = ContinuousClock()
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// One daemon and its client.
struct Rig {
    let name: String
    let client: Client
}

struct Measurements {
    var touchToReply: [Double] = []
    var cycle: [Double] = []

    func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    var summary: [String: Double] {
        ["touchToReplyMedianMs": percentile(touchToReply, 0.5), "touchToReplyP95Ms": percentile(touchToReply, 0.95),
         "cycleMedianMs": percentile(cycle, 0.5), "cycleP95Ms": percentile(cycle, 0.95)]
    }
}

let provider = try ReferenceProvider()
let simulatorBus = try PrivateBus(), providerBus = try PrivateBus()
defer { simulatorBus.stop(); providerBus.stop() }
let simulatorDaemon = try DaemonUnderTest(bus: simulatorBus, configuration: "backends = fingerprint, passcode\n")
let providerDaemon = try DaemonUnderTest(bus: providerBus, configuration: provider.configuration(timeout: 5))
let watchers = (try await simulatorBus.connect(), try await providerBus.connect())
try await simulatorDaemon.start(watcher: watchers.0)
try await providerDaemon.start(watcher: watchers.1)
defer { simulatorDaemon.kill(); providerDaemon.kill() }

// The simulator: armed when the context prompts.
let simulatorClient = try await Client(simulatorBus)
try await simulatorClient.setUp(passcode: "bench-passcode", fingers: ["right-index-finger"])
let prompts = Inbox<String>()
_ = try await simulatorClient.connection.subscribe(DBusMatchRule(interface: LocalAuthBusNames.contextInterface, member: "Prompt")) {
    prompts.put($0.arguments.first?.string ?? "")
}
let simulatorRig = Rig(name: "built-in simulator", client: simulatorClient)

// The provider: armed when its simulator says Listening.
let providerClient = try await Client(providerBus)
try await P.waitForBackend("reference", on: providerClient.connection) { $0 == "available" }
_ = try await providerClient.manager("SetPasscode", [.string(""), .string("bench-passcode")])
let listening = Inbox<String>()
_ = try await providerClient.connection.subscribe(DBusMatchRule(path: P.simulatorPath, interface: P.simulatorInterface, member: "Listening")) {
    listening.put($0.arguments.first?.string ?? "")
}
let enrollment = Task { try await providerClient.manager("Enroll", [.string("fingerprint"), .string("right-index-finger"), .string("bench-passcode")]) }
_ = try await listening.next()
for _ in 0..<3 { try await P.simulator(providerClient.connection, "Touch", [.string("right-index-finger")]) }
_ = try await enrollment.value
let providerRig = Rig(name: "Python reference provider", client: providerClient)

/// Runs `cycles` cycles on `rig`; "touch → reply" starts when the touch is sent, after the sensor listens.
func measure(_ rig: Rig, cycles: Int, adding earlier: Measurements = Measurements()) async throws -> Measurements {
    var measurements = earlier
    for _ in 0..<cycles {
        // A fresh context each time: one that succeeded would answer at once (its earlier success).
        let context = try await rig.client.createContext()
        let start = clock.now
        let evaluation = Task { try await rig.client.context(context, "EvaluatePolicy", [.uint32(1), .string("bench")]) }
        let touchSent = try await touch(rig)
        _ = try await evaluation.value
        let end = clock.now
        measurements.touchToReply.append(milliseconds(end - touchSent))
        measurements.cycle.append(milliseconds(end - start))
        _ = try await rig.client.context(context, "Invalidate")
    }
    return measurements
}

/// Waits until `rig`'s sensor listens, touches it with the enrolled finger, and returns when the touch was sent.
func touch(_ rig: Rig) async throws -> ContinuousClock.Instant {
    if rig.name == simulatorRig.name {
        while try await prompts.next() != "biometry" {}
        let sent = clock.now
        try await simulatorClient.simulator("Touch", [.string("right-index-finger")])
        return sent
    }
    _ = try await listening.next()
    let sent = clock.now
    try await P.simulator(providerClient.connection, "Touch", [.string("right-index-finger")])
    return sent
}

// Warm-up, then interleaved blocks.
for rig in [simulatorRig, providerRig] { _ = try await measure(rig, cycles: 10) }
var results: [String: Measurements] = [:]
for _ in 0..<blocks {
    for rig in [simulatorRig, providerRig] {
        results[rig.name] = try await measure(rig, cycles: cycles, adding: results[rig.name] ?? Measurements())
    }
}

var lines = ["| sensor | touch → reply median | p95 | whole cycle median | p95 |", "|---|---|---|---|---|"]
var json: [String: [String: Double]] = [:]
for rig in [simulatorRig, providerRig] {
    let summary = results[rig.name]!.summary
    json[rig.name] = summary
    lines.append(String(format: "| %@ | %.2f ms | %.2f ms | %.2f ms | %.2f ms |", rig.name, summary["touchToReplyMedianMs"]!, summary["touchToReplyP95Ms"]!,
                        summary["cycleMedianMs"]!, summary["cycleP95Ms"]!))
}
let overhead = json[providerRig.name]!["touchToReplyMedianMs"]! - json[simulatorRig.name]!["touchToReplyMedianMs"]!
lines.append("")
lines.append(String(format: "A match through the provider costs %.2f ms more (median touch → reply), %d cycles × %d blocks each, interleaved.", overhead, cycles, blocks))
print(lines.joined(separator: "\n"))
let data = try JSONSerialization.data(withJSONObject: ["cycles": cycles, "blocks": blocks, "results": json, "providerOverheadMs": overhead], options: [.prettyPrinted, .sortedKeys])
try data.write(to: URL(fileURLWithPath: jsonPath))
withExtendedLifetime((watchers, provider)) {}
