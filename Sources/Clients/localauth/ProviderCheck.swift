// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus
import LocalAuthSystem

/// The steps of `localauth provider check`, run in order against a provider that owns its bus name
/// (docs/providers.md): each says PASS or FAIL in one sentence, a FAIL with what to fix. A step
/// that leaves nothing to build on (no handshake) ends the run; the others all run.
@MainActor
final class ProviderCheck {
    let descriptor: ProviderDescriptor
    let host: ProviderCheckHost
    /// The bus's address, for the stranger's connection.
    let address: String
    /// The provider's unique name: every call goes there, as localauthd's do.
    let provider: String
    let user: UInt32
    let simulate: Bool
    /// How long a call may take before the provider counts as hung (localauthd's provider_timeout).
    let callTimeout: Duration
    /// How long a person has to touch the sensor.
    let touchTimeout: Duration
    private let output: Output
    private(set) var failures = 0
    private var capabilities: [String: DBusValue] = [:]
    private var templates: [String] = []
    private static let session: UInt64 = 1
    private static let enrollment: UInt64 = 1
    /// The enrollment that runs to the end, and the session that matches its template.
    private static let completeEnrollment: UInt64 = 2
    private static let matchSession: UInt64 = 2
    /// The label the check enrolls (and, with --simulate, touches).
    private static let label = "provider-check"

    init(descriptor: ProviderDescriptor, host: ProviderCheckHost, address: String, provider: String, user: UInt32, simulate: Bool,
         callTimeout: Duration, touchTimeout: Duration, output: Output) {
        self.descriptor = descriptor
        self.host = host
        self.address = address
        self.provider = provider
        self.user = user
        self.simulate = simulate
        self.callTimeout = callTimeout
        self.touchTimeout = touchTimeout
        self.output = output
    }

    /// Every step after the provider owns its name; false when one failed.
    func run() async -> Bool {
        guard await hello() else { return false }
        await availability()
        await listTemplates()
        if await arm() {
            await ping()
            await attempt()
            await disarm()
        }
        await enrollment()
        if let template = await enrollCompletely() {
            await match(template)
            await delete(template)
        }
        await refusals()
        return failures == 0
    }

    /// One step's line: `PASS  step: sentence` (or FAIL), or its JSON object.
    static func report(_ output: Output, _ step: String, passed: Bool, _ sentence: String) {
        output.result("\(passed ? "PASS" : "FAIL")  \(step): \(sentence)",
                      json: .object([("step", .string(step)), ("pass", .bool(passed)), ("message", .string(sentence))]))
    }

    private func pass(_ step: String, _ sentence: String) {
        Self.report(output, step, passed: true, sentence)
    }

    private func fail(_ step: String, _ sentence: String) {
        failures += 1
        Self.report(output, step, passed: false, sentence)
    }

    /// A Provider1 call to the provider's unique name, bounded by ``callTimeout``. Untyped on purpose
    /// (members named by their ``ProviderMethod`` declarations): the check sends malformed calls too
    /// and reports a reply of the wrong signature as it came, which a typed call would refuse first.
    private func call(_ member: String, _ arguments: [DBusValue], interface: String = LocalAuthBusNames.providerInterface,
                      path: String = LocalAuthBusNames.providerPath, on connection: DBusConnection? = nil) async throws -> [DBusValue] {
        try await (connection ?? host.connection).call(destination: provider, path: path, interface: interface, member: member,
                                                       arguments: arguments, timeout: callTimeout)
    }

    /// `10 s`: a whole number of seconds as the messages say it.
    static func words(_ duration: Duration) -> String { "\(duration.components.seconds) s" }

    /// Why a call failed, as a sentence part; a missing reply says what localauthd would do.
    private func why(_ error: any Error) -> String {
        if let error = error as? DBusError, error.name == .noReply || error.name == .timeout {
            return "no reply within \(Self.words(callTimeout)) (localauthd would take the provider for hung and restart it); answer every call at once and do slow work in the background"
        }
        return "it failed with \(error)"
    }

    private func hello() async -> Bool {
        let step = "hello"
        let reply: [DBusValue]
        do { reply = try await call(ProviderMethod.hello.member, [.uint32(1)]) } catch {
            fail(step, "Hello(1): \(why(error))")
            return false
        }
        guard DBusValue.signature(of: reply) == "usa{sv}", let version = reply[0].uint32, let modality = reply[1].string,
              let capabilities = reply[2].vardict else {
            fail(step, "Hello answered (\(DBusValue.signature(of: reply))); it must answer (usa{sv}): version, modality, capabilities")
            return false
        }
        guard version == 1 else {
            fail(step, "Hello answered version \(version); answer with the minor version localauthd sent (1 here) or lower, at least 1: localauthd refuses this provider")
            return false
        }
        guard modality == descriptor.modality.rawValue else {
            fail(step, "Hello says modality \"\(modality)\", the descriptor says \(descriptor.modality.rawValue); make them agree")
            return false
        }
        for (key, value) in capabilities.sorted(by: { $0.key < $1.key }) {
            if let type = ProviderCapabilityKey(rawValue: key)?.signature, value.unwrapped.signature != type {
                fail(step, "capability \(key) is of type \(value.unwrapped.signature), it must be \(type): localauthd refuses this provider")
                return false
            }
        }
        self.capabilities = capabilities.mapValues(\.unwrapped)
        let providerVersion = self.capabilities["ProviderVersion"]?.string ?? "no ProviderVersion"
        pass(step, "version 1, modality \(modality), \(providerVersion)")
        return true
    }

    private func availability() async {
        let step = "availability"
        guard self.capabilities["Available"]?.bool != false else {
            fail(step, "Hello says Available false: the sensor is absent; plug it in (the remaining steps need it)")
            return
        }
        guard simulate else {
            pass(step, "Hello says the sensor is present (unplug reports are exercised with --simulate)")
            return
        }
        for available in [false, true] {
            host.discardPending()
            let input = Task { try await self.call("SetAvailable", [.bool(available)], interface: Self.simulatorInterface, path: Self.simulatorPath) }
            let report = await host.next(within: callTimeout)
            if case .failure(let error) = await input.result {
                fail(step, "--simulate needs the reference provider's simulator input (\(Self.simulatorInterface)); SetAvailable failed: \(error)")
                return
            }
            guard case .availability(available)? = report else {
                fail(step, "the sensor was \(available ? "plugged in" : "unplugged"), but the provider sent \(report.map(\.description) ?? "nothing"); call ReportAvailability(\(available)) when it comes or goes")
                return
            }
        }
        pass(step, "unplugging and plugging the sensor in were reported (ReportAvailability false, then true)")
    }

    private func listTemplates() async {
        do {
            let reply = try await call(ProviderMethod.listTemplates.member, [.uint32(user)])
            guard DBusValue.signature(of: reply) == "as", let list = reply[0].strings else {
                fail("list-templates", "ListTemplates answered (\(DBusValue.signature(of: reply))); it must answer (as)")
                return
            }
            templates = list
            pass("list-templates", "uid \(user) has \(list.count) template\(list.count == 1 ? "" : "s")")
        } catch {
            fail("list-templates", "ListTemplates(\(user)): \(why(error))")
        }
    }

    private func arm() async -> Bool {
        do {
            _ = try await call(ProviderMethod.arm.member, [.uint64(Self.session), .uint32(user), .strings(templates), .vardict([:])])
            pass("arm", "Arm answered at once")
            return true
        } catch {
            fail("arm", "Arm: \(why(error))")
            return false
        }
    }

    private func ping() async {
        do {
            _ = try await call("Ping", [], interface: "org.freedesktop.DBus.Peer", path: "/")
            pass("ping", "org.freedesktop.DBus.Peer.Ping answered while armed")
        } catch {
            fail("ping", "Peer.Ping while armed: \(why(error)); localauthd pings an armed provider and ends the evaluation when it does not answer: never block the main loop")
        }
    }

    private func attempt() async {
        let step = "attempt"
        host.discardPending()
        let clock = ContinuousClock()
        let deadline = clock.now + (simulate ? callTimeout : touchTimeout)
        if simulate {
            // A label no template has: the provider reports no-match (or match, were it enrolled).
            // Touch returns once its report was answered, so the report is recorded by then.
            do {
                _ = try await call("Touch", [.string(Self.label)], interface: Self.simulatorInterface, path: Self.simulatorPath)
            } catch {
                fail(step, "--simulate needs the reference provider's simulator input (\(Self.simulatorInterface)); Touch failed: \(error)")
                return
            }
        } else {
            output.note("Touch the sensor (or show your face) now; waiting \(Self.words(touchTimeout)).")
        }
        let retryReasons = capabilities[ProviderCapabilityKey.retryReasons.rawValue]?.strings ?? []
        var retries = 0
        while true {
            let left = deadline - clock.now
            guard left > .zero, let report = await host.next(within: left) else {
                fail(step, retries > 0 ? "only retry reports came (\(retries)); a readable touch must give match or no-match"
                                       : "no ReportAttempt within \(Self.words(simulate ? callTimeout : touchTimeout)) of the touch; report each read with ProviderHost.ReportAttempt")
                return
            }
            guard case .attempt(let session, let result, let detail) = report else {
                fail(step, "expected ReportAttempt, the provider sent \(report)")
                return
            }
            guard session == Self.session else {
                fail(step, "ReportAttempt names session \(session); report for the session Arm gave (\(Self.session))")
                return
            }
            switch AttemptResult(rawValue: result) {
            case .retry:
                guard retryReasons.contains(detail), RetryReason(rawValue: detail) != nil else {
                    fail(step, "retry reason \"\(detail)\" is not one of Hello's RetryReasons (\(retryReasons.joined(separator: ", "))) and protocol 1's; localauthd refuses it")
                    return
                }
                retries += 1
            case .match:
                guard templates.contains(detail) else {
                    fail(step, "a match must name one of the armed templates (\(templates.joined(separator: ", "))), not \"\(detail)\"")
                    return
                }
                pass(step, "ReportAttempt(\(session), match, \(detail)) is well-formed")
                return
            case .noMatch, .disconnected:
                pass(step, "ReportAttempt(\(session), \(result)) is well-formed")
                return
            case nil:
                fail(step, "result \"\(result)\" is not one of \(AttemptResult.allCases.map(\.rawValue).joined(separator: ", ")); localauthd refuses it")
                return
            }
        }
    }

    private func disarm() async {
        do {
            _ = try await call(ProviderMethod.disarm.member, [.uint64(Self.session)])
            pass("disarm", "Disarm answered")
        } catch {
            fail("disarm", "Disarm: \(why(error))")
        }
    }

    private func enrollment() async {
        let step = "enroll"
        do {
            let reply = try await call(ProviderMethod.enrollStart.member, [.uint64(Self.enrollment), .uint32(user), .string(Self.label)])
            guard DBusValue.signature(of: reply) == "u", let stages = reply[0].uint32, stages > 0 else {
                fail(step, "EnrollStart answered (\(DBusValue.signature(of: reply))) \(reply.first?.uint32.map(String.init) ?? ""); it must answer (u) the number of captures, at least 1")
                _ = try? await call(ProviderMethod.enrollCancel.member, [.uint64(Self.enrollment)])
                return
            }
            _ = try await call(ProviderMethod.enrollCancel.member, [.uint64(Self.enrollment)])
            let after = try await call(ProviderMethod.listTemplates.member, [.uint32(user)]).first?.strings ?? []
            guard Set(after) == Set(templates) else {
                fail(step, "after EnrollCancel uid \(user) has templates \(after), before \(templates); a cancelled enrollment keeps nothing")
                return
            }
            pass(step, "EnrollStart (\(stages) stage\(stages == 1 ? "" : "s")) and EnrollCancel answered; nothing was kept")
        } catch {
            fail(step, "EnrollStart/EnrollCancel: \(why(error))")
        }
    }

    /// An enrollment to the end: a capture per stage (you, or the simulator's Touch), each reported
    /// with ReportEnrollment, then `completed` with a template that ListTemplates then lists.
    private func enrollCompletely() async -> String? {
        let step = "enroll-complete"
        host.discardPending()
        let stages: UInt32
        do {
            guard let answered = try await call(ProviderMethod.enrollStart.member, [.uint64(Self.completeEnrollment), .uint32(user), .string(Self.label)]).first?.uint32,
                  answered > 0 else {
                fail(step, "EnrollStart did not answer a stage count of at least 1")
                _ = try? await call(ProviderMethod.enrollCancel.member, [.uint64(Self.completeEnrollment)])
                return nil
            }
            stages = answered
        } catch {
            fail(step, "EnrollStart: \(why(error))")
            return nil
        }
        let clock = ContinuousClock()
        let deadline = clock.now + (simulate ? callTimeout : touchTimeout)
        if simulate {
            for _ in 0..<stages {
                do {
                    _ = try await call("Touch", [.string(Self.label)], interface: Self.simulatorInterface, path: Self.simulatorPath)
                } catch {
                    fail(step, "--simulate needs the reference provider's simulator input (\(Self.simulatorInterface)); Touch failed: \(error)")
                    _ = try? await call(ProviderMethod.enrollCancel.member, [.uint64(Self.completeEnrollment)])
                    return nil
                }
            }
        } else {
            output.note("Enrolling: touch the sensor \(stages) time\(stages == 1 ? "" : "s"), lifting your finger in between; waiting \(Self.words(touchTimeout)).")
        }
        var completed: UInt32 = 0
        while true {
            let left = deadline - clock.now
            guard left > .zero, let report = await host.next(within: left) else {
                fail(step, "after \(completed) of \(stages) stages no ReportEnrollment came; report each capture (stage-passed), then completed with the new template")
                _ = try? await call(ProviderMethod.enrollCancel.member, [.uint64(Self.completeEnrollment)])
                return nil
            }
            guard case .enrollment(let id, let status, let stagesDone, let detail) = report, id == Self.completeEnrollment else {
                fail(step, "expected ReportEnrollment(\(Self.completeEnrollment), …), the provider sent \(report)")
                _ = try? await call(ProviderMethod.enrollCancel.member, [.uint64(Self.completeEnrollment)])
                return nil
            }
            switch EnrollmentReport(rawValue: status) {
            case .stagePassed, .retry:
                guard stagesDone >= completed, stagesDone <= stages else {
                    fail(step, "completed_stages went from \(completed) to \(stagesDone) of \(stages); count the captures taken, up to EnrollStart's answer")
                    _ = try? await call(ProviderMethod.enrollCancel.member, [.uint64(Self.completeEnrollment)])
                    return nil
                }
                completed = stagesDone
            case .completed:
                do {
                    let held = try await call(ProviderMethod.listTemplates.member, [.uint32(user)]).first?.strings ?? []
                    guard !detail.isEmpty, held.contains(detail) else {
                        fail(step, "completed named template \"\(detail)\", but ListTemplates lists \(held); store the template before reporting completed")
                        return nil
                    }
                } catch {
                    fail(step, "ListTemplates after the enrollment: \(why(error))")
                    return nil
                }
                pass(step, "\(stages) capture\(stages == 1 ? "" : "s") reported, completed with template \(detail), which ListTemplates lists")
                return detail
            case .failed:
                fail(step, "the provider reported the enrollment failed (\(detail))")
                return nil
            case nil:
                fail(step, "status \"\(status)\" is not one of \(EnrollmentReport.allCases.map(\.rawValue).joined(separator: ", ")); localauthd refuses it")
                _ = try? await call(ProviderMethod.enrollCancel.member, [.uint64(Self.completeEnrollment)])
                return nil
            }
        }
    }

    /// The enrolled template matches: Arm with it alone, a touch, `match` naming it, Disarm.
    private func match(_ template: String) async {
        let step = "match"
        host.discardPending()
        do {
            _ = try await call(ProviderMethod.arm.member, [.uint64(Self.matchSession), .uint32(user), .strings([template]), .vardict([:])])
        } catch {
            fail(step, "Arm with the new template: \(why(error))")
            return
        }
        await matchAttempt(template)
        _ = try? await call(ProviderMethod.disarm.member, [.uint64(Self.matchSession)])
    }

    private func matchAttempt(_ template: String) async {
        let step = "match"
        let clock = ContinuousClock()
        let deadline = clock.now + (simulate ? callTimeout : touchTimeout)
        if simulate {
            do {
                _ = try await call("Touch", [.string(Self.label)], interface: Self.simulatorInterface, path: Self.simulatorPath)
            } catch {
                fail(step, "Touch failed: \(error)")
                return
            }
        } else {
            output.note("Touch the sensor with the finger you just enrolled; waiting \(Self.words(touchTimeout)).")
        }
        while true {
            let left = deadline - clock.now
            guard left > .zero, let report = await host.next(within: left) else {
                fail(step, "no ReportAttempt for the enrolled template; report a match naming the armed template")
                return
            }
            switch report {
            case .attempt(Self.matchSession, AttemptResult.retry.rawValue, _):
                continue
            case .attempt(Self.matchSession, AttemptResult.match.rawValue, template):
                pass(step, "the new template matched: ReportAttempt(\(Self.matchSession), match, \(template))")
                return
            default:
                fail(step, "expected ReportAttempt(\(Self.matchSession), match, \(template)), the provider sent \(report)")
                return
            }
        }
    }

    /// DeleteTemplate removes the check's template, and ListTemplates no longer lists it.
    private func delete(_ template: String) async {
        do {
            _ = try await call(ProviderMethod.deleteTemplate.member, [.uint32(user), .string(template)])
            let held = try await call(ProviderMethod.listTemplates.member, [.uint32(user)]).first?.strings ?? []
            guard !held.contains(template) else {
                fail("delete", "ListTemplates still lists \(template) after DeleteTemplate")
                return
            }
            pass("delete", "DeleteTemplate removed \(template)")
        } catch {
            fail("delete", "DeleteTemplate(\(template)): \(why(error))")
        }
    }

    private func refusals() async {
        let step = "refusals"
        let stranger: DBusConnection
        do {
            stranger = try await DBusConnection.connect(to: .address(address))
        } catch {
            fail(step, "cannot connect a second client to the bus: \(error)")
            return
        }
        defer { stranger.close() }
        do {
            _ = try await call(ProviderMethod.listTemplates.member, [.uint32(user)], on: stranger)
            fail(step, "a connection that is not localauthd got an answer to ListTemplates; answer only the owner of \(LocalAuthBusNames.busName) (GetNameOwner), refuse others with AccessDenied")
            return
        } catch {}
        do {
            _ = try await call(ProviderMethod.arm.member, [.string("not a session")])
            fail(step, "Arm with arguments (s) was answered; refuse arguments of the wrong types (InvalidArgs)")
            return
        } catch {}
        do {
            _ = try await call(ProviderMethod.deleteTemplate.member, [.uint32(user), .string("provider-check-no-such-template")])
            fail(step, "DeleteTemplate of a template that does not exist was answered; refuse it with \(LocalAuthBusNames.providerErrorPrefix)UnknownTemplate")
            return
        } catch let error as DBusError where error.name.rawValue == LocalAuthBusNames.providerErrorPrefix + "UnknownTemplate" {
        } catch {
            fail(step, "DeleteTemplate of an unknown template: \(why(error)); refuse it with \(LocalAuthBusNames.providerErrorPrefix)UnknownTemplate")
            return
        }
        pass(step, "a stranger's call, arguments of the wrong types and an unknown template are refused")
    }

    /// The reference provider's simulator input, which `--simulate` drives instead of a finger.
    static let simulatorPath = "/org/localauth/ReferenceProvider1"
    static let simulatorInterface = "org.localauth.ReferenceProvider1.Simulator"
}
