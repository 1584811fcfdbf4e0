// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthDBus
#if canImport(Glibc)
import Glibc
#endif

/// Serves org.localauth.Provider1 for localauthd by driving fprintd.
///
/// Everything that reaches the provider — localauthd's calls, fprintd's signals, bus name changes —
/// becomes an `Event`, and one task handles the events strictly in order (`run()`), so an Arm is
/// finished (claimed, verifying) before a Disarm or a VerifyStatus for it is looked at. The actor's
/// state is only touched from that task. fprintd calls are bounded (`Fprintd.timeout`), so no event
/// waits forever behind another.
///
/// The claim on the reader is held only while a session is armed or an enrollment runs: it is
/// released on a match, on Disarm, on EnrollCancel or the enrollment's end, when localauthd leaves
/// the bus, and on SIGTERM. While fprintd restarts or the reader is gone, nothing is claimed.
actor FprintdProvider {
    /// One of fprintd's device signals: its first argument, and its place in the order of arrival.
    struct FprintdSignal: Sendable {
        let number: UInt64
        let device: String
        let value: String
    }

    enum Event: Sendable {
        case hello(DBusPendingReply)
        case arm(session: UInt64, user: UInt32, templates: [String], DBusPendingReply)
        case disarm(session: UInt64, DBusPendingReply)
        case enrollStart(id: UInt64, user: UInt32, label: String, DBusPendingReply)
        case enrollCancel(id: UInt64, DBusPendingReply)
        case listTemplates(user: UInt32, DBusPendingReply)
        case deleteTemplate(user: UInt32, template: String, DBusPendingReply)
        /// fprintd's signals, numbered in the order they arrived (`FprintdSignal.number`).
        case verifyFingerSelected(FprintdSignal)
        case verifyStatus(FprintdSignal)
        case enrollStatus(FprintdSignal)
        /// fprintd's unique name changed; nil: fprintd left the bus.
        case fprintdOwner(String?)
        /// localauthd's unique name changed; nil: localauthd left the bus.
        case hostOwner(String?)
        case terminate(CheckedContinuation<Void, Never>)
    }

    /// One armed session: the reader is claimed and verifying `finger`.
    struct Verification {
        let session: UInt64
        let device: String
        /// A finger name, or "any" when fprintd chooses among all of the user's fingers.
        let finger: String
        /// The armed templates fprintd holds, in localauthd's order.
        let candidates: [String]
        /// What fprintd said it verifies (VerifyFingerSelected).
        var selected: String?
        let host: String

        /// The template a verify-match stands for: the finger fprintd named, else the first candidate
        /// (fprintd identifying among several fingers does not say which one matched).
        var matchedTemplate: String {
            if let selected, candidates.contains(selected) { return selected }
            return finger == "any" ? candidates[0] : finger
        }
    }

    struct Enrollment {
        let id: UInt64
        let device: String
        let finger: String
        var completedStages: UInt32
        let host: String
    }

    enum Activity {
        case idle
        case verifying(Verification)
        case enrolling(Enrollment)
    }

    static let version = "1.0"

    private let fprintd: Fprintd
    private let reporter: HostReporter
    private let log: @Sendable (String) -> Void
    private var activity = Activity.idle
    private var host: String?
    private var fprintdOwner: String?
    /// The last availability localauthd was told (Hello or ReportAvailability).
    private var reportedAvailable = true
    /// fprintd signals numbered up to this one belong to a verification or enrollment that has
    /// ended. fprintd reports a cancelled verification as verify-no-match (before it answers
    /// VerifyStop or Release), and that must not count against the next session.
    private var staleSignals: UInt64 = 0
    /// The number of the last fprintd signal received (read on the connection's queue).
    private let signalsReceived: @Sendable () -> UInt64

    init(fprintd: Fprintd, reporter: HostReporter, signalsReceived: @escaping @Sendable () -> UInt64, log: @escaping @Sendable (String) -> Void) {
        self.fprintd = fprintd
        self.signalsReceived = signalsReceived
        self.reporter = reporter
        self.log = log
    }

    /// Handles events until `terminate`.
    func run(_ events: AsyncStream<Event>) async {
        for await event in events {
            if case .terminate(let done) = event {
                await endActivity(reason: "the provider stops")
                done.resume()
                return
            }
            await handle(event)
        }
    }

    private func handle(_ event: Event) async {
        switch event {
        case .hello(let reply): await hello(reply)
        case .arm(let session, let user, let templates, let reply): await arm(session: session, user: user, templates: templates, reply)
        case .disarm(let session, let reply):
            // Answered first: nothing more is reported for the session from here on, and
            // localauthd need not wait for fprintd to release.
            reply.send([])
            if case .verifying(let verification) = activity, verification.session == session {
                await endActivity(reason: "disarmed")
            }
        case .enrollStart(let id, let user, let label, let reply): await enrollStart(id: id, user: user, label: label, reply)
        case .enrollCancel(let id, let reply):
            reply.send([])
            if case .enrolling(let enrollment) = activity, enrollment.id == id {
                await endActivity(reason: "enrollment cancelled")
            }
        case .listTemplates(let user, let reply): await listTemplates(user: user, reply)
        case .deleteTemplate(let user, let template, let reply): await deleteTemplate(user: user, template: template, reply)
        case .verifyFingerSelected(let signal):
            if signal.number > staleSignals, case .verifying(var verification) = activity, verification.device == signal.device {
                verification.selected = signal.value
                activity = .verifying(verification)
            }
        case .verifyStatus(let signal):
            if signal.number > staleSignals { await verifyStatus(device: signal.device, result: signal.value) }
        case .enrollStatus(let signal):
            if signal.number > staleSignals { await enrollStatus(device: signal.device, result: signal.value) }
        case .fprintdOwner(let owner): await fprintdOwnerChanged(owner)
        case .hostOwner(let owner):
            if owner != host {
                // localauthd left or was replaced: whatever it armed or enrolled is over.
                await endActivity(reason: "localauthd left the bus")
                host = owner
            }
        case .terminate: break
        }
    }

    // MARK: Handshake and queries

    private func hello(_ reply: DBusPendingReply) async {
        var capabilities: [ProviderCapabilityKey: DBusValue] = [
            .providerVersion: .string(Self.version),
            .description: .string("Fingerprint readers through fprintd (net.reactivated.Fprint)"),
            .identify: .bool(false),
            .attention: .bool(false),
            .retryReasons: .strings(VerifyOutcome.retryReasons.map(\.rawValue)),
        ]
        var available = false
        // fprintd can enroll on every reader; without a reader now the count is not known yet, so
        // 1 says "can enroll" and EnrollStart answers the reader's real count.
        var stages: UInt32 = 1
        do {
            let device = try await fprintd.defaultDevice()
            available = true
            stages = (try? await fprintd.enrollStages(device: device)) ?? 1
        } catch {
            log("no reader now: \(error)")
        }
        capabilities[.available] = .bool(available)
        capabilities[.enrollStages] = .uint32(stages)
        reportedAvailable = available
        reply.send([.uint32(1), .string(BiometricModality.fingerprint.rawValue),
                    .vardict(Dictionary(uniqueKeysWithValues: capabilities.map { ($0.key.rawValue, $0.value) }))])
    }

    private func listTemplates(user: UInt32, _ reply: DBusPendingReply) async {
        do {
            let name = try userName(user)
            let device = try await fprintd.defaultDevice()
            reply.send([.strings(try await fprintd.enrolledFingers(device: device, user: name))])
        } catch let error as FprintdError {
            reply.fail(ProviderError.from(error))
        } catch {
            reply.fail(error as? DBusError ?? .failed("\(error)"))
        }
    }

    private func deleteTemplate(user: UInt32, template: String, _ reply: DBusPendingReply) async {
        guard case .idle = activity else {
            reply.fail(ProviderError.busy("the reader is in use by an evaluation or enrollment; delete afterwards"))
            return
        }
        do {
            let name = try userName(user)
            let device = try await fprintd.defaultDevice()
            guard FingerName(rawValue: template) != nil,
                  try await fprintd.enrolledFingers(device: device, user: name).contains(template)
            else {
                reply.fail(ProviderError.unknownTemplate("fprintd holds no \(template) for \(name)"))
                return
            }
            try await fprintd.claim(device: device, user: name)
            do {
                try await fprintd.deleteEnrolledFinger(device: device, finger: template)
            } catch {
                await release(device)
                throw error
            }
            await release(device)
            reply.send([])
        } catch let error as FprintdError {
            reply.fail(ProviderError.from(error))
        } catch {
            reply.fail(error as? DBusError ?? .failed("\(error)"))
        }
    }

    // MARK: Evaluation

    private func arm(session: UInt64, user: UInt32, templates: [String], _ reply: DBusPendingReply) async {
        switch activity {
        case .enrolling:
            reply.fail(ProviderError.busy("an enrollment is running on the reader; arm after it ends"))
            return
        case .verifying:
            await endActivity(reason: "replaced by session \(session)")
        case .idle:
            break
        }
        guard let host else {
            reply.fail(ProviderError.unavailable("localauthd is not on the bus"))
            return
        }
        do {
            let name = try userName(user)
            let device = try await fprintd.defaultDevice()
            let enrolled = try await fprintd.enrolledFingers(device: device, user: name)
            let candidates = templates.filter(enrolled.contains)
            guard let first = candidates.first else {
                reply.fail(ProviderError.unknownTemplate(
                    "fprintd holds none of \(name)'s templates (\(templates.joined(separator: ", "))); enroll a finger again"))
                return
            }
            // "any" only when every finger fprintd holds for the user was armed: a finger enrolled
            // elsewhere (GNOME Settings) but not through localauthd must not match.
            let finger = candidates.count > 1 && Set(enrolled).isSubset(of: templates) ? "any" : first
            try await fprintd.claim(device: device, user: name)
            do {
                try await fprintd.verifyStart(device: device, finger: finger)
            } catch {
                await release(device)
                throw error
            }
            activity = .verifying(Verification(
                session: session, device: device, finger: finger, candidates: candidates, selected: nil, host: host))
            if !reportedAvailable { report(.availability(true)) }
            reply.send([])
        } catch let error as FprintdError {
            await noticeFailure(error)
            reply.fail(ProviderError.from(error))
        } catch {
            reply.fail(error as? DBusError ?? .failed("\(error)"))
        }
    }

    private func verifyStatus(device: String, result: String) async {
        guard case .verifying(let verification) = activity, verification.device == device else { return }
        let outcome = VerifyOutcome(fprintdResult: result)
        switch outcome {
        case .match:
            reporter.send(.attempt(session: verification.session, result: .match, detail: verification.matchedTemplate), to: verification.host)
            // The evaluation is over: release now rather than waiting for Disarm.
            await endActivity(reason: nil)
        case .noMatch:
            reporter.send(.attempt(session: verification.session, result: .noMatch, detail: ""), to: verification.host)
            // fprintd ends a verification after a no-match; listen again until localauthd disarms.
            do {
                try await fprintd.verifyStop(device: device)
                try await fprintd.verifyStart(device: device, finger: verification.finger)
            } catch {
                log("cannot restart verification after a no-match: \(error)")
                await sensorLost(verification)
            }
        case .retry(let reason):
            reporter.send(.attempt(session: verification.session, result: .retry, detail: reason.rawValue), to: verification.host)
        case .disconnected:
            log("fprintd ended session \(verification.session) with \(result)")
            await sensorLost(verification)
        }
    }

    /// The reader failed or went away during a session: localauthd hears disconnected, the claim is
    /// dropped, and whether a reader is still there is reported.
    private func sensorLost(_ verification: Verification) async {
        reporter.send(.attempt(session: verification.session, result: .disconnected, detail: ""), to: verification.host)
        await endActivity(reason: nil)
        followRemoval()
    }

    /// Delays after a lost reader at which fprintd is asked again whether a reader is there.
    static let removalChecks: [Duration] = [.zero, .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4)]
    private var removalFollowing = false

    /// After a disconnect, fprintd may still list the reader for a moment: the verification ends
    /// before fprintd drops the unplugged device. So it is asked again a few times (about 8 s in all)
    /// until it says the reader is gone; a reader that is still listed then failed without leaving,
    /// and stays available. fprintd has no signal for a device that went away.
    private func followRemoval() {
        guard !removalFollowing else { return }
        removalFollowing = true
        Task { [self] in
            for delay in Self.removalChecks {
                try? await Task.sleep(for: delay)
                await refreshAvailability()
                if !reportedAvailable || !isIdle { break }
            }
            removalFollowed()
        }
    }

    private func removalFollowed() { removalFollowing = false }

    private var isIdle: Bool {
        if case .idle = activity { return true }
        return false
    }

    // MARK: Enrollment

    private func enrollStart(id: UInt64, user: UInt32, label: String, _ reply: DBusPendingReply) async {
        guard case .idle = activity else {
            reply.fail(ProviderError.busy("the reader is in use by an evaluation or another enrollment; try again after it ends"))
            return
        }
        guard let host else {
            reply.fail(ProviderError.unavailable("localauthd is not on the bus"))
            return
        }
        guard FingerName(rawValue: label) != nil else {
            reply.fail(ProviderError.enrollFailed(
                "\"\(label)\" is not one of fprintd's finger names (\(FingerName.allCases.map(\.rawValue).joined(separator: ", ")))"))
            return
        }
        do {
            let name = try userName(user)
            let device = try await fprintd.defaultDevice()
            let stages = try await fprintd.enrollStages(device: device)
            try await fprintd.claim(device: device, user: name)
            do {
                try await fprintd.enrollStart(device: device, finger: label)
            } catch {
                await release(device)
                throw error
            }
            activity = .enrolling(Enrollment(id: id, device: device, finger: label, completedStages: 0, host: host))
            reply.send([.uint32(stages)])
        } catch let error as FprintdError {
            await noticeFailure(error)
            reply.fail(ProviderError.from(error))
        } catch {
            reply.fail(error as? DBusError ?? .failed("\(error)"))
        }
    }

    private func enrollStatus(device: String, result: String) async {
        guard case .enrolling(var enrollment) = activity, enrollment.device == device else { return }
        switch EnrollOutcome(fprintdResult: result) {
        case .stagePassed:
            enrollment.completedStages += 1
            activity = .enrolling(enrollment)
            reporter.send(.enrollment(id: enrollment.id, status: .stagePassed, completedStages: enrollment.completedStages, detail: ""), to: enrollment.host)
        case .retry(let reason):
            reporter.send(.enrollment(id: enrollment.id, status: .retry, completedStages: enrollment.completedStages, detail: reason.rawValue), to: enrollment.host)
        case .completed:
            // fprintd reports the last capture as enroll-completed, not as a passed stage.
            reporter.send(.enrollment(id: enrollment.id, status: .completed, completedStages: enrollment.completedStages + 1, detail: enrollment.finger), to: enrollment.host)
            await endActivity(reason: nil)
        case .failed(let reason):
            reporter.send(.enrollment(id: enrollment.id, status: .failed, completedStages: enrollment.completedStages, detail: reason), to: enrollment.host)
            await endActivity(reason: nil)
            if reason == "disconnected" { followRemoval() }
        }
    }

    // MARK: fprintd coming and going

    private func fprintdOwnerChanged(_ owner: String?) async {
        let previous = fprintdOwner
        fprintdOwner = owner
        if previous != nil {
            // fprintd exited or restarted: its claims died with it.
            switch activity {
            case .idle:
                break
            case .verifying(let verification):
                log("fprintd left the bus during session \(verification.session)")
                reporter.send(.attempt(session: verification.session, result: .disconnected, detail: ""), to: verification.host)
                activity = .idle
                if owner == nil { report(.availability(false)) }
            case .enrolling(let enrollment):
                log("fprintd left the bus during enrollment \(enrollment.id)")
                reporter.send(.enrollment(id: enrollment.id, status: .failed, completedStages: enrollment.completedStages, detail: "disconnected"), to: enrollment.host)
                activity = .idle
                if owner == nil { report(.availability(false)) }
            }
        }
        // fprintd exits by itself when idle (bus activation); only its return is news, and only if
        // localauthd was told the reader was gone.
        if owner != nil, !reportedAvailable { await refreshAvailability() }
    }

    /// After a failed Arm or EnrollStart: no fprintd or no reader is news for localauthd; an fprintd
    /// that stopped answering (killed while the provider claimed the reader) is asked again, since
    /// its leaving arrived while no session was armed yet.
    private func noticeFailure(_ error: FprintdError) async {
        switch error {
        case .notRunning, .noDevice: if reportedAvailable { report(.availability(false)) }
        case .noAnswer, .unexpected: await refreshAvailability()
        case .alreadyInUse, .permissionDenied, .noEnrolledPrints: break
        }
    }

    /// Asks fprintd for a reader and tells localauthd if that changed. Only a definite answer
    /// counts: an fprintd that does not answer says nothing about the reader, and a reader wrongly
    /// reported gone would never be armed again.
    private func refreshAvailability() async {
        let available: Bool
        do {
            _ = try await fprintd.defaultDevice()
            available = true
        } catch .notRunning, .noDevice {
            available = false
        } catch {
            log("cannot tell whether a reader is there: \(error)")
            return
        }
        if available != reportedAvailable { report(.availability(available)) }
    }

    private func report(_ report: HostReporter.Report) {
        if case .availability(let available) = report { reportedAvailable = available }
        guard let host else { return }
        reporter.send(report, to: host)
    }

    // MARK: Ending

    /// Stops whatever runs on the reader and releases the claim. fprintd errors are logged, not
    /// thrown: the claim is gone either way (fprintd drops it when the reader or fprintd goes away).
    private func endActivity(reason: String?) async {
        let previous = activity
        activity = .idle
        switch previous {
        case .idle:
            return
        case .verifying(let verification):
            if let reason { log("session \(verification.session) ends: \(reason)") }
            do { try await fprintd.verifyStop(device: verification.device) } catch { log("VerifyStop: \(error)") }
            await release(verification.device)
        case .enrolling(let enrollment):
            if let reason { log("enrollment \(enrollment.id) ends: \(reason)") }
            do { try await fprintd.enrollStop(device: enrollment.device) } catch { log("EnrollStop: \(error)") }
            await release(enrollment.device)
        }
        // fprintd sends a stopped operation's last status before it answers Release, so every
        // signal of the operation has arrived by now.
        staleSignals = signalsReceived()
    }

    private func release(_ device: String) async {
        do { try await fprintd.release(device: device) } catch { log("Release: \(error)") }
    }

    private func userName(_ uid: UInt32) throws(DBusError) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else {
            throw .invalidArgs("no user with uid \(uid)")
        }
        return String(cString: name)
    }
}
