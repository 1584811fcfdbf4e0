// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthTestSupport
import Testing

/// Another user (uid 65534 through setpriv) holding the fingerprint sensor and re-arming its other
/// evaluations in a loop cannot keep it from the victim: the victim's turn comes within one turn
/// length, and the touch meant for the victim satisfies the victim's evaluation.
@Suite("Sensor sharing under attack", .timeLimit(.minutes(2)))
struct SensorSharingAttackTests {
    typealias D = DaemonUnderTest
    static let turnSeconds = 3
    static let finger = "right-index-finger"

    /// Enrolls the victim's finger name for uid 65534, starts one evaluation it never cancels (and
    /// restarts whenever it ends), prints `holding` once that one holds the sensor, then every
    /// 0.25 s cancels and re-arms two more. Replies are not awaited (`ignore_reply`), so one
    /// thread drives all three.
    static let attacker = PythonDBusClient.prelude + #"""
import time
manager = dbus.Interface(bus.get_object(N, M, introspect=False), N + '.Manager')
manager.SetPasscode('', 'mallory-secret-1')
manager.Enroll('fingerprint', sys.argv[2], 'mallory-secret-1')
contexts = []
for _ in range(3):
    path = manager.CreateContext(dbus.Dictionary({}, signature='sv'))
    proxy = bus.get_object(N, path, introspect=False)
    contexts.append((dbus.Interface(proxy, N + '.Context'), dbus.Interface(proxy, 'org.freedesktop.DBus.Properties')))
def state(index):
    return str(contexts[index][1].Get(N + '.Context', 'State'))
def evaluate(index):
    contexts[index][0].EvaluatePolicy(dbus.UInt32(1), 'mine', ignore_reply=True)
evaluate(0)
while state(0) != 'biometry':
    time.sleep(0.01)
print('holding', flush=True)
while True:
    for index in (1, 2):
        contexts[index][0].Cancel()
        evaluate(index)
    if state(0) == 'idle':
        evaluate(0)
    time.sleep(0.25)
"""#

    @Test func aUserReArmingInALoopCannotKeepTheSensorFromAnother() async throws {
        let rounds = StressLevel.count("LOCALAUTH_SENSOR_ROUNDS", bounded: 1, stress: 10)
        let configuration = "sensor_turn_seconds = \(Self.turnSeconds)\nevaluation_timeout = 30\n"
        try await withDaemon(configuration: configuration, allowingEveryUser: true) { daemon, bus in
            let victim = try await Client(bus)
            try await victim.setUp(fingers: [Self.finger])

            let attacker = Process()
            attacker.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            attacker.arguments = AccessTests.nobody + ["/usr/bin/python3", "-c", Self.attacker, bus.address, Self.finger]
            let pipe = Pipe()
            attacker.standardOutput = pipe
            attacker.standardError = pipe
            try attacker.run()
            defer { ChildProcess.kill(attacker) }
            let heard = ChildOutput(pipe), lines = heard.lines
            #expect(try await lines.next(within: .seconds(20)) == "holding", "\(heard.text)")

            for round in 0..<rounds {
                let context = try await victim.createContext()
                let prompts = Inbox<String>()
                let subscription = try await victim.connection.subscribe(
                    DBusMatchRule(path: context, interface: LocalAuthBusNames.contextInterface, member: "Prompt")) { signal in
                    prompts.put(signal.arguments.first?.string ?? "")
                }
                defer { victim.connection.unsubscribe(subscription) }
                let evaluation = Task {
                    await errorName { _ = try await victim.context(context, "EvaluatePolicy", [.uint32(1), .string("victim")]) }
                }
                // Waiting first (the attacker holds), then listening within one turn.
                var kinds: [String] = []
                do {
                    while kinds.last != "biometry" {
                        kinds.append(try await prompts.next(within: .seconds(Self.turnSeconds + 7)))
                    }
                } catch {
                    Issue.record("round \(round): the victim never got the sensor while uid 65534 re-armed; prompts \(kinds)")
                    _ = try await victim.context(context, "Cancel")
                    _ = await evaluation.value
                    break
                }
                #expect(kinds.first == "waiting", "round \(round): the attacker held the sensor when the victim began")
                try await victim.simulator("Touch", [.string(Self.finger)])
                let outcome = await evaluation.value
                #expect(outcome == nil, "round \(round): the victim's touch must satisfy the victim's evaluation, prompts \(kinds)")
            }
            #expect(attacker.isRunning, "the attacker script died: \(heard.text)")
            daemon.kill()
        }
    }
}
