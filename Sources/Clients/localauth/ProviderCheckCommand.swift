// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import CommandLineKit
import LocalAuthAPI
import LocalAuthBackends
import LocalAuthDBus
import LocalAuthSystem

/// `provider check DESCRIPTOR`: a vendor's test of a provider against the protocol, without
/// localauthd. It reads the descriptor as localauthd does, stands in for localauthd on a bus
/// (a private `dbus-daemon` of its own unless `--bus` names one), starts the descriptor's `Exec=`
/// (or waits for the provider's name), and runs ``ProviderCheck``'s steps.
struct ProviderCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration<Self>(
        words: ["provider", "check"], summary: "Check a biometric provider against the provider protocol, without localauthd.",
        details: """
        Reads DESCRIPTOR as localauthd would, starts a private D-Bus daemon (unless --bus), owns \
        localauthd's bus name there and serves ProviderHost itself, starts the descriptor's Exec= \
        (without Exec=, waits for the provider's bus name), then checks in order: the Hello \
        handshake, availability, ListTemplates, Arm, Peer.Ping while armed, an attempt report (touch \
        the sensor when asked; --simulate drives the reference provider's simulator input instead), \
        Disarm, EnrollStart and EnrollCancel, an enrollment to the end, a match of its template, \
        DeleteTemplate, and that a stranger's call and bad arguments are refused. Prints PASS or FAIL for each step with what to fix; exit status 0 only if all pass.
        """,
        options: [
            .value(\.bus, "--bus", "ADDRESS", "check on this bus instead of a private one (nothing else may own org.localauth.LocalAuthentication1 there)",
                   parser: ValueParser.nonEmpty("--bus needs a D-Bus address, e.g. unix:path=/run/my-bus.").map { $0 }),
            .flag(\.simulate, "--simulate", "touch and unplug through the reference provider's simulator input instead of asking you"),
            .value(\.touchSeconds, "--touch-timeout", "SECONDS", "how long to wait for you to touch the sensor (default 60)",
                   parser: Self.seconds("--touch-timeout")),
            .value(\.callSeconds, "--call-timeout", "SECONDS", "how long the provider may take to answer a call (default 10, as localauthd's provider_timeout)",
                   parser: Self.seconds("--call-timeout")),
        ],
        arguments: [.argument(\.descriptorPath, "DESCRIPTOR")])
    var descriptorPath = ""
    var bus: String?
    var simulate = false
    var touchSeconds = 60
    var callSeconds = 10
    /// How long the provider may take to own its bus name after it was started.
    static let startTimeout: Duration = .seconds(60)

    static func seconds(_ option: String) -> ValueParser<Int> {
        ValueParser { text, _ throws(CommandLineError) in
            guard let seconds = Int(text), (1...3600).contains(seconds) else {
                throw CommandLineError("\(option) needs a whole number of seconds from 1 to 3600, not “\(text)”.")
            }
            return seconds
        }
    }

    func run(_ global: GlobalOptions) async throws(CLIError) -> Int32 {
        let output = global.output
        let descriptor: ProviderDescriptor
        do {
            descriptor = try ProviderCatalog.descriptor(at: descriptorPath, builtIn: BackendRegistry.builtIn.ids)
        } catch {
            ProviderCheck.report(output, "descriptor", passed: false, "\(error) (localauthd would start without this provider)")
            return ExitStatus.failed
        }
        ProviderCheck.report(output, "descriptor", passed: true, "\(descriptor.id): \(descriptor.modality.rawValue) provider \(descriptor.busName), uid \(descriptor.uid)")

        /// What this run started, stopped last first at the end and on Ctrl-C or SIGTERM; its sentry
        /// ends them should this process end any other way.
        let children = ProviderCheckChildren()
        Interrupts.handler = {
            children.stop()
            exit(ExitStatus.interrupted)
        }
        defer {
            Interrupts.handler = nil
            children.stop()
        }

        let address: String
        if let bus {
            address = bus
        } else {
            let daemon = try children.start(["/usr/bin/dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1"],
                                            captureOutput: true)
            guard let line = daemon.readLine(), !line.isEmpty else { throw .failed("dbus-daemon did not start (is dbus-daemon installed?)") }
            address = line
        }
        let host = try await ProviderCheckHost.start(on: address)
        defer { host.close() }

        let owners = ProviderCheckOwners()
        let subscription: DBusSubscription
        do {
            subscription = try await host.connection.watchNameOwners(descriptor.busName) { change in
                if let owner = change.newOwner { owners.put(owner) }
            }
        } catch {
            throw .failed("cannot watch \(descriptor.busName) on the bus at \(address): \(error)")
        }
        defer { host.connection.unsubscribe(subscription) }
        var started: ProviderCheckProcess?
        if let exec = descriptor.exec {
            started = try children.start(exec, environment: ["DBUS_STARTER_ADDRESS": address, "DBUS_STARTER_BUS_TYPE": "system",
                                                            "LOCALAUTH_PROVIDER_ID": descriptor.id])
        } else {
            output.note("The descriptor has no Exec=: start your provider on the bus at \(address) (DBUS_STARTER_ADDRESS=\(address)); waiting \(ProviderCheck.words(Self.startTimeout)).")
        }
        if let owner = try? await host.connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                                       member: "GetNameOwner", arguments: [.string(descriptor.busName)]).first?.string {
            owners.put(owner)
        }
        guard let provider = await owners.next(within: Self.startTimeout, stopping: { started?.exited() }) else {
            let why = started?.exited().map { "the provider exited (wait status \($0)) without owning it" }
                ?? "nobody owned it within \(ProviderCheck.words(Self.startTimeout))"
            ProviderCheck.report(output, "start", passed: false, "\(descriptor.busName) never appeared on the bus: \(why); request the name from the descriptor's BusName= on $DBUS_STARTER_ADDRESS")
            return ExitStatus.failed
        }
        host.believe(provider)
        do {
            let uid = try await host.connection.credentials(of: provider).uid
            guard uid == descriptor.uid else {
                ProviderCheck.report(output, "start", passed: false, "\(descriptor.busName) is owned by \(provider) with uid \(uid), not the descriptor's User= (uid \(descriptor.uid)); localauthd refuses it: run the check as that user or fix User=")
                return ExitStatus.failed
            }
        } catch {
            ProviderCheck.report(output, "start", passed: false, "cannot ask the bus who owns \(descriptor.busName): \(error)")
            return ExitStatus.failed
        }
        ProviderCheck.report(output, "start", passed: true, "\(descriptor.busName) is owned by \(provider) with uid \(descriptor.uid)")

        let check = ProviderCheck(descriptor: descriptor, host: host, address: address, provider: provider, user: getuid(), simulate: simulate,
                                  callTimeout: .seconds(callSeconds), touchTimeout: .seconds(touchSeconds), output: output)
        let passed = await check.run()
        output.result(passed ? "All steps passed." : "\(check.failures) step\(check.failures == 1 ? "" : "s") failed.",
                      json: .object([("passed", .bool(passed)), ("failures", .int(check.failures))]))
        return passed ? ExitStatus.success : ExitStatus.failed
    }
}
