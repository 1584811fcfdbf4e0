// SPDX-License-Identifier: Apache-2.0
import Foundation
import LocalAuthTestSupport
import Synchronization
import Testing

/// A headless desktop for one test: Xvfb on a display it picks itself (`-displayfd`), a session
/// bus of its own (which activates the accessibility bus, as a desktop session's does), and
/// localauth-agent-gtk from the source tree as the fallback agent of localauthd's private bus.
/// The sheet is read and driven through AT-SPI (sheet-driver.py), keys typed with xdotool, the
/// screen saved with ImageMagick's `import` under .build/screenshots/.
///
/// Everything it starts dies with it, through ``ProcessGroups``: the session bus's activated
/// services above all (at-spi-bus-launcher, the accessibility `dbus-daemon` and
/// at-spi2-registryd), which nothing else would end.
final class DesktopSession: Sendable {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let agentScript = repository.appendingPathComponent("agent-gtk/localauth-agent-gtk").path
    static let driverScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("sheet-driver.py").path
    static let screenshots = repository.appendingPathComponent(".build/screenshots")
    /// Everything here may take this long on a loaded 2-core machine.
    static let patience: Duration = .seconds(60)

    let display: String
    /// The session bus's address.
    let sessionBus: String
    /// Xvfb, the session bus and the agent, each with what it started.
    private let children = ProcessGroups()
    let agent: Process
    /// The agent's standard error: a line when it registers, GTK's warnings.
    let agentOutput: ChildOutput

    /// What the agent's sheet shows, as AT-SPI tells it.
    struct Snapshot: Decodable, CustomStringConvertible {
        let texts: [String]
        let buttons: [String: Bool]
        let fields: [String]
        let focused: String
        var description: String { "texts \(texts), buttons \(buttons), fields \(fields), focused \(focused)" }
        func shows(_ text: String) -> Bool { texts.contains { $0.contains(text) } }
    }

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts the display, the session bus and the agent for localauthd on `bus`, and returns once
    /// the agent has registered. If it throws, what it started is already gone.
    /// - Parameter environment: overrides for the agent's environment (its locale, its style).
    init(serving bus: PrivateBus, environment: [String: String] = [:]) async throws {
        display = ":" + (try children.startPrinting("/usr/bin/Xvfb", ["-displayfd", "1", "-screen", "0", "1024x768x24", "-nolisten", "tcp", "-noreset"]))
        sessionBus = try children.startPrinting("/usr/bin/dbus-daemon", ["--session", "--nofork", "--print-address=1", "--nopidfile"])

        let agent = Process()
        agent.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        agent.arguments = [Self.agentScript, "--fallback", "--address", bus.address]
        agent.environment = Self.environment(display: display, sessionBus: sessionBus).merging(environment) { $1 }
        let output = Pipe()
        agent.standardOutput = output
        agent.standardError = output
        try children.start(agent)
        self.agent = agent
        agentOutput = ChildOutput(output)
        try await waitForRegistration()
    }

    /// The desktop's environment, English, with GTK drawing through cairo (no GPU under Xvfb).
    static func environment(display: String, sessionBus: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["LANGUAGE", "LC_MESSAGES", "LANG", "WAYLAND_DISPLAY", "NO_AT_BRIDGE", "GTK_A11Y"] { environment[name] = nil }
        environment["LC_ALL"] = "C.UTF-8"
        environment["DISPLAY"] = display
        environment["GDK_BACKEND"] = "x11"
        environment["GSK_RENDERER"] = "cairo"
        environment["GSETTINGS_BACKEND"] = "memory"
        environment["DBUS_SESSION_BUS_ADDRESS"] = sessionBus
        environment["LOCALAUTH_AGENT_GTK_LOCALEDIR"] = compiledCatalogues
        return environment
    }

    /// agent-gtk/po/*.po compiled with msgfmt, as `make agent-gtk` does, into a directory of this test run.
    static let compiledCatalogues: String = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("localauth-agent-gtk-locale-\(getpid())")
        for language in ["de", "fr"] {
            let messages = directory.appendingPathComponent("\(language)/LC_MESSAGES")
            try? FileManager.default.createDirectory(at: messages, withIntermediateDirectories: true)
            let msgfmt = Process()
            msgfmt.executableURL = URL(fileURLWithPath: "/usr/bin/msgfmt")
            msgfmt.arguments = ["-c", "-o", messages.appendingPathComponent("localauth-agent-gtk.mo").path,
                                repository.appendingPathComponent("agent-gtk/po/\(language).po").path]
            try? msgfmt.run()
            msgfmt.waitUntilExit()
        }
        return directory.path
    }()

    /// Returns at the agent's next "registered" line (its first registration, or the one after
    /// localauthd came back).
    func waitForRegistration() async throws {
        while true {
            let line: String
            do {
                line = try await agentOutput.lines.next(within: Self.patience)
            } catch {
                throw Failed(description: "the agent did not register; it said: \(agentOutput.text)")
            }
            if line.contains("registered with localauthd") { return }
        }
    }

    /// Waits until the sheet shows every one of `texts`.
    @discardableResult
    func sheet(showing texts: [String]) async throws -> Snapshot {
        let (status, output) = try await driver(["wait", "60"] + texts)
        let snapshot = try Self.decode(output)
        guard status == 0 else { throw Failed(description: "the sheet never showed \(texts); it shows: \(snapshot)") }
        return snapshot
    }

    /// Waits until no sheet is shown.
    func sheetGone() async throws {
        let (status, output) = try await driver(["gone", "60"])
        guard status == 0 else { throw Failed(description: "the sheet stayed: \(output)") }
    }

    /// Activates the button of that accessible name, as a screen reader does.
    func press(_ button: String) async throws {
        let (status, output) = try await driver(["press", button])
        guard status == 0 else { throw Failed(description: "pressing \(button): \(output)") }
    }

    /// Puts `text` into the field of that accessible name.
    func fill(_ field: String, with text: String) async throws {
        let (status, output) = try await driver(["fill", field, text])
        guard status == 0 else { throw Failed(description: "filling \(field): \(output)") }
    }

    /// Presses a key on the keyboard (X11 keysym name: Return, Escape, Tab).
    func key(_ name: String) async throws {
        let result = try await runTool("/usr/bin/xdotool", ["key", name], environment: ["DISPLAY": display], timeout: Self.patience)
        guard result.status == 0 else { throw Failed(description: "xdotool key \(name): \(result.output)") }
    }

    /// Saves the whole screen as .build/screenshots/NAME.png (kept as a build artifact).
    func screenshot(_ name: String) async throws {
        try FileManager.default.createDirectory(at: Self.screenshots, withIntermediateDirectories: true)
        let path = Self.screenshots.appendingPathComponent(name + ".png").path
        let result = try await runTool("/usr/bin/import", ["-display", display, "-window", "root", path], timeout: Self.patience)
        guard result.status == 0 else { throw Failed(description: "import: \(result.output)") }
    }

    /// The mean lightness (0 black … 1 white) of a rectangle of a saved screenshot.
    func lightness(of name: String, x: Int, y: Int, width: Int, height: Int) async throws -> Double {
        let path = Self.screenshots.appendingPathComponent(name + ".png").path
        let result = try await runTool("/usr/bin/convert", [path, "-crop", "\(width)x\(height)+\(x)+\(y)", "-colorspace", "Gray",
                                                           "-format", "%[fx:mean]", "info:"], timeout: Self.patience)
        guard result.status == 0, let mean = Double(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failed(description: "convert: \(result.output)")
        }
        return mean
    }

    private func driver(_ arguments: [String]) async throws -> (Int32, String) {
        let environment = Self.environment(display: display, sessionBus: sessionBus)
        return try await runTool("/usr/bin/python3", [Self.driverScript] + arguments, environment: environment, timeout: .seconds(90))
    }

    private static func decode(_ output: String) throws -> Snapshot {
        let json = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }).map(String.init) ?? ""
        do {
            return try JSONDecoder().decode(Snapshot.self, from: Data(json.utf8))
        } catch {
            throw Failed(description: "the driver said: \(output)")
        }
    }

    deinit {
        children.end()
    }
}

/// Children that take what they start with them: each is the leader of its own process group (as
/// `Foundation.Process` starts every child, checked at the start), and ending it kills that whole
/// group, in the reverse order of their start.
///
/// A group, because the session bus's activated services are no children of ours and outlive the
/// bus: dbus-daemon hands at-spi-bus-launcher to init at once, and the launcher's SIGTERM to the
/// accessibility bus when its session bus goes is never taken, since Foundation starts children with
/// SIGTERM blocked and the mask is inherited down the tree (the accessibility bus then keeps
/// at-spi2-registryd alive). They all stay in the bus's group; init reaps them once killed.
final class ProcessGroups: Sendable {
    private let leaders = Mutex<[Process]>([])

    /// Runs `process` as a group leader, ended with the others.
    func start(_ process: Process) throws {
        try process.run()
        leaders.withLock { $0.append(process) }
        let pid = process.processIdentifier
        guard getpgid(pid) == pid else {
            throw DesktopSession.Failed(description: "\(process.executableURL?.path ?? "a child") is not a process group leader: what it starts would outlive the test")
        }
    }

    /// Runs a program that prints one line once it is ready (Xvfb's display number, dbus-daemon's
    /// address) and returns that line.
    func startPrinting(_ path: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let printed = Pipe()
        process.standardOutput = printed
        process.standardError = FileHandle.nullDevice
        try start(process)
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = printed.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw DesktopSession.Failed(description: "\(path) exited before it was ready") }
            line.append(chunk)
        }
        return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Kills each group (SIGKILL: the children may have SIGTERM blocked) and reaps its leader.
    func end() {
        for process in leaders.withLock({ leaders in defer { leaders = [] }; return leaders.reversed() }) {
            kill(-process.processIdentifier, SIGKILL)
            ChildProcess.kill(process)
        }
    }

    deinit { end() }
}
