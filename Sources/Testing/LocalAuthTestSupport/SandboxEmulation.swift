// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The confinement a systemd unit's `[Service]` section puts a daemon in, read from the unit
/// file and reproduced without systemd (``ConfinedDaemon`` runs the daemon in it).
///
/// Every directive of the section is classified (``treatment(of:)``): reproduced here
/// (``Treatment/emulated``), enforced only by systemd (``Treatment/enforcedOnlyBySystemd(_:)``,
/// with the reason it cannot be reproduced meaningfully), or about running the service rather
/// than confining it (``Treatment/serviceManagement(_:)``). A directive the emulation does not
/// know is an error (``UnknownDirectives``), so a unit that gains one fails the tests until the
/// emulation learns it.
///
/// What systemd does, and what the launcher (``launcher(daemon:arguments:stateDirectory:scratch:environment:bootID:unitName:)``) does for it:
/// - `ProtectProc=invisible`, `ProcSubset=pid`: a new `proc` instance with
///   `hidepid=invisible,subset=pid` in the service's own mount namespace. Not a new pid namespace:
///   the daemon must see its clients' pids, which the bus reports in the host's.
/// - `CapabilityBoundingSet=`, `AmbientCapabilities=`, `NoNewPrivileges=`: `setpriv`.
/// - `PrivateTmp=`: new `tmpfs` on `/tmp` and `/var/tmp`; `PrivateDevices=`: a `tmpfs` `/dev`
///   with `null`, `zero`, `full`, `random`, `urandom`, `tty` bound in; `PrivateNetwork=`: a new
///   network namespace (only a path socket reaches the bus, as on a real system);
///   `ProtectHostname=`: a new UTS namespace.
/// - `ProtectSystem=strict`: every mount read-only except the API file systems, the private
///   `/tmp`s and the state directory; `ProtectHome=yes`: empty, inaccessible `/home`, `/root`,
///   `/run/user`; `ProtectKernelTunables=`, `ProtectControlGroups=`: `/sys` read-only.
/// - `BindPaths=` of device nodes (the TPM's `/dev/tpmrm0`): bound into the private `/dev`
///   (a `-` path only when it exists).
/// - `StateDirectory=` (mode `StateDirectoryMode=`), `ConfigurationDirectory=`: the test's
///   directories, named by `STATE_DIRECTORY` and `CONFIGURATION_DIRECTORY` as systemd names them.
/// - `Environment=` (with `%b`, `%%`, `%n`, `%N`, `%p` expanded), `UMask=`, `User=`, `Group=`.
/// - A clean environment (systemd passes none of the caller's).
public struct SandboxEmulation: Sendable {
    /// How the emulation treats a directive.
    public enum Treatment: Sendable, Equatable {
        case emulated
        case enforcedOnlyBySystemd(String)
        case serviceManagement(String)
    }

    /// Directives the unit sets that the emulation does not know, or values of known ones it cannot reproduce.
    public struct UnknownDirectives: Error, CustomStringConvertible {
        public let directives: [String]
        public var description: String {
            "the unit sets what the sandbox emulation does not know (teach SandboxEmulation, or list it as enforced only by systemd): "
                + directives.joined(separator: "; ")
        }
    }

    static let seccomp = "a seccomp filter that systemd builds from its own system-call tables; reproducing it would test our copy of them"

    /// Every directive the emulation knows.
    public static let treatments: [String: Treatment] = [
        "ExecStart": .emulated,
        "StateDirectory": .emulated,
        "StateDirectoryMode": .emulated,
        "ConfigurationDirectory": .emulated,
        "UMask": .emulated,
        "User": .emulated,
        "Group": .emulated,
        "Environment": .emulated,
        "CapabilityBoundingSet": .emulated,
        "AmbientCapabilities": .emulated,
        "NoNewPrivileges": .emulated,
        "PrivateTmp": .emulated,
        "PrivateDevices": .emulated,
        "PrivateNetwork": .emulated,
        "ProtectSystem": .emulated,
        "ProtectHome": .emulated,
        "ProtectKernelTunables": .emulated,
        "ProtectControlGroups": .emulated,
        "ProtectHostname": .emulated,
        "ProtectProc": .emulated,
        "ProcSubset": .emulated,
        "BindPaths": .emulated,

        "Type": .serviceManagement("how systemd knows the daemon is ready; the test waits for the bus name instead"),
        "NotifyAccess": .serviceManagement("who may send sd_notify messages; no service manager listens in the test"),
        "BusName": .serviceManagement("the name systemd waits for; the test waits for the same name"),
        "ExecReload": .serviceManagement("a test sends SIGHUP itself"),
        "WatchdogSec": .serviceManagement("systemd's watchdog; SystemdIntegrationTests cover the daemon's pings"),
        "Restart": .serviceManagement("a test restarts the daemon itself"),

        "IPAddressDeny": .enforcedOnlyBySystemd("a cgroup BPF program; with PrivateNetwork= the daemon has no address to reach anyway"),
        "ProtectKernelModules": .enforcedOnlyBySystemd("seccomp on the module system calls; CAP_SYS_MODULE is gone with the bounding set"),
        "ProtectKernelLogs": .enforcedOnlyBySystemd("seccomp on syslog(2); /dev/kmsg is gone with PrivateDevices= and /proc/kmsg with ProcSubset=pid"),
        "ProtectClock": .enforcedOnlyBySystemd("seccomp on the clock-setting calls; CAP_SYS_TIME is gone with the bounding set"),
        "RestrictAddressFamilies": .enforcedOnlyBySystemd(seccomp),
        "RestrictNamespaces": .enforcedOnlyBySystemd(seccomp),
        "RestrictRealtime": .enforcedOnlyBySystemd(seccomp),
        "RestrictSUIDSGID": .enforcedOnlyBySystemd(seccomp),
        "LockPersonality": .enforcedOnlyBySystemd(seccomp),
        "MemoryDenyWriteExecute": .enforcedOnlyBySystemd(seccomp),
        "SystemCallArchitectures": .enforcedOnlyBySystemd(seccomp),
        "SystemCallFilter": .enforcedOnlyBySystemd(seccomp),
        "SystemCallErrorNumber": .enforcedOnlyBySystemd(seccomp),
        "DeviceAllow": .enforcedOnlyBySystemd("a cgroup device program; the emulation binds the device in (BindPaths=) and leaves access to its mode"),
        "DevicePolicy": .enforcedOnlyBySystemd("a cgroup device program; PrivateDevices= leaves only the pseudo devices anyway"),
        "KeyringMode": .enforcedOnlyBySystemd("the kernel keyring, which the daemon does not use"),
        "RemoveIPC": .enforcedOnlyBySystemd("System V IPC removed when the service stops; the daemon creates none"),
    ]

    /// The `[Service]` directives in order, a key once per line it is set on.
    public let directives: [(key: String, value: String)]

    /// Reads `[Service]` of `unit` (continuation lines joined, comments skipped) and checks that
    /// every directive is known and every emulated one has a value the emulation reproduces.
    public init(unit: String) throws {
        var section = ""
        var directives: [(key: String, value: String)] = []
        var pending = ""
        for raw in unit.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = pending + raw.trimmingCharacters(in: .whitespaces)
            pending = ""
            if line.hasSuffix("\\") {
                line.removeLast()
                pending = line + " "
                continue
            }
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                section = line
                continue
            }
            guard section == "[Service]", let equals = line.firstIndex(of: "=") else { continue }
            directives.append((String(line[..<equals]).trimmingCharacters(in: .whitespaces),
                               String(line[line.index(after: equals)...]).trimmingCharacters(in: .whitespaces)))
        }
        self.directives = directives
        var unknown: [String] = []
        for (key, value) in directives {
            guard let treatment = Self.treatments[key] else {
                unknown.append("\(key)=\(value)")
                continue
            }
            if treatment == .emulated, let problem = Self.unsupported(key, value) { unknown.append("\(key)=\(value): \(problem)") }
        }
        guard unknown.isEmpty else { throw UnknownDirectives(directives: unknown) }
    }

    /// Reads the unit file at `path`.
    public init(unitFile path: String) throws {
        try self.init(unit: try String(contentsOfFile: path, encoding: .utf8))
    }

    /// The unit the package installs (`systemd/localauthd.service`).
    public static func localauthd() throws -> SandboxEmulation {
        try SandboxEmulation(unitFile: SystemPolicy.repositoryRoot.appendingPathComponent("systemd/localauthd.service").path)
    }

    /// How the emulation treats `key`, nil if it does not know it.
    public static func treatment(of key: String) -> Treatment? { treatments[key] }

    /// Why an emulated directive's value cannot be reproduced, nil if it can.
    static func unsupported(_ key: String, _ value: String) -> String? {
        switch key {
        case "ProtectSystem": return ["strict", "no", "false"].contains(value) ? nil : "only strict is emulated"
        case "ProtectHome": return ["yes", "true", "no", "false"].contains(value) ? nil : "only yes is emulated"
        case "ProtectProc": return ["invisible", "default"].contains(value) ? nil : "only invisible is emulated"
        case "ProcSubset": return ["pid", "all"].contains(value) ? nil : "only pid is emulated"
        case "UMask": return UInt32(value, radix: 8) == nil ? "not an octal mask" : nil
        case "StateDirectoryMode": return UInt32(value, radix: 8) == nil ? "not an octal mode" : nil
        case "StateDirectory", "ConfigurationDirectory":
            return value.contains(" ") || value.contains("/") ? "one plain directory name is emulated" : nil
        case "CapabilityBoundingSet", "AmbientCapabilities":
            return value.hasPrefix("~") ? "an inverted set is not emulated" : nil
        case "Environment":
            return (try? environment(value, bootID: "0", unitName: "x.service")) == nil ? "a specifier other than %b %% %n %N %p" : nil
        case "BindPaths":
            return value.split(separator: " ").allSatisfy { devicePath(String($0)) != nil } ? nil : "only device nodes (/dev/…, no destination) are emulated"
        default: return nil
        }
    }

    // MARK: What the unit sets

    /// The last value of `key`, nil if unset.
    public func value(_ key: String) -> String? { directives.last { $0.key == key }?.value }

    public func isOn(_ key: String) -> Bool { value(key).map { ["yes", "true", "1", "on"].contains($0) } ?? false }

    /// A `BindPaths=` word naming a device node (`/dev/…`, optionally `-`: ignored when missing) and
    /// whether it may be missing; nil for anything else (another path, a `source:destination` pair).
    static func devicePath(_ word: String) -> (path: String, optional: Bool)? {
        let optional = word.hasPrefix("-")
        let path = optional ? String(word.dropFirst()) : word
        guard path.hasPrefix("/dev/"), !path.contains(":"), !path.contains("'"), !path.contains(".."), path.count > 5 else { return nil }
        return (path, optional)
    }

    /// The device nodes `BindPaths=` binds into the private `/dev`.
    public var boundDevices: [(path: String, optional: Bool)] {
        directives.filter { $0.key == "BindPaths" }.flatMap { $0.value.split(separator: " ").compactMap { Self.devicePath(String($0)) } }
    }

    /// `ExecStart=`'s words (no `-@:+!` prefixes are used by our units; a prefix stays part of the path).
    public var execStart: [String] { (value("ExecStart") ?? "").split(separator: " ").map(String.init) }

    /// The capabilities a list directive leaves (`setpriv`'s names: lowercase without `cap_`);
    /// an empty assignment resets the list, as systemd reads repeated lines.
    public func capabilities(_ key: String) -> [String] {
        var result: [String] = []
        for (name, value) in directives where name == key {
            if value.isEmpty { result = [] }
            result += value.split(separator: " ").map { $0.lowercased().replacingOccurrences(of: "cap_", with: "") }
        }
        return result
    }

    /// `Environment=` assignments with specifiers expanded.
    public func environment(bootID: String, unitName: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in directives where name == "Environment" {
            result.merge(try Self.environment(value, bootID: bootID, unitName: unitName)) { $1 }
        }
        return result
    }

    /// Splits one `Environment=` value into its assignments (double quotes group words) and
    /// expands the specifiers a unit of ours may use.
    static func environment(_ value: String, bootID: String, unitName: String) throws -> [String: String] {
        var words: [String] = []
        var word = ""
        var quoted = false
        for character in value {
            if character == "\"" {
                quoted.toggle()
            } else if character == " " && !quoted {
                if !word.isEmpty { words.append(word) }
                word = ""
            } else {
                word.append(character)
            }
        }
        if !word.isEmpty { words.append(word) }
        var result: [String: String] = [:]
        for assignment in words {
            guard let equals = assignment.firstIndex(of: "=") else { throw UnknownDirectives(directives: ["Environment=\(assignment)"]) }
            result[String(assignment[..<equals])] = try expand(String(assignment[assignment.index(after: equals)...]), bootID: bootID, unitName: unitName)
        }
        return result
    }

    /// systemd's specifiers: `%b` the boot id as 32 hex digits, `%n` the unit name, `%N` and `%p`
    /// without its suffix, `%%` a percent sign.
    static func expand(_ text: String, bootID: String, unitName: String) throws -> String {
        var result = ""
        var iterator = text.makeIterator()
        while let character = iterator.next() {
            guard character == "%" else {
                result.append(character)
                continue
            }
            switch iterator.next() {
            case "b": result += bootID.replacingOccurrences(of: "-", with: "").lowercased()
            case "n": result += unitName
            case "N", "p": result += unitName.split(separator: ".").dropLast().joined(separator: ".")
            case "%": result += "%"
            case let other: throw UnknownDirectives(directives: ["specifier %\(other.map(String.init) ?? "")"])
            }
        }
        return result
    }

    // MARK: The launcher

    /// The `.build` directory `daemon` was built in (its catalogues are there too), or the
    /// daemon's own directory.
    static func buildDirectory(of daemon: String) -> String? {
        let parts = daemon.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count > 1 else { return nil }
        if let build = parts.lastIndex(of: ".build") { return parts[...build].joined(separator: "/") }
        return parts.dropLast().joined(separator: "/")
    }

    /// The command that starts `daemon` with `arguments` in this sandbox (run as root): `unshare`
    /// for the namespaces, a shell for the mounts and the umask, `setpriv` for the user and the
    /// capabilities, `env -i` for systemd's clean environment.
    /// - Parameters:
    ///   - stateDirectory: the writable state directory (StateDirectory=), created with its mode.
    ///   - scratch: a directory outside `/tmp` for the launcher's own mount points.
    ///   - environment: what systemd would add (STATE_DIRECTORY…) and the test needs
    ///     (DBUS_SYSTEM_BUS_ADDRESS for the test's bus); `Environment=` wins over it, as it does in systemd.
    public func launcher(daemon: String, arguments: [String], stateDirectory: String, scratch: String,
                         environment: [String: String], bootID: String, unitName: String) throws -> [String] {
        var namespaces = ["--mount", "--propagation", "private"]
        if isOn("PrivateNetwork") { namespaces.append("--net") }
        if isOn("ProtectHostname") { namespaces.append("--uts") }

        var script = ["set -e"]
        if value("ProtectProc") == "invisible" || value("ProcSubset") == "pid" {
            var options = ["nosuid", "nodev", "noexec"]
            if value("ProtectProc") == "invisible" { options.append("hidepid=invisible") }
            if value("ProcSubset") == "pid" { options.append("subset=pid") }
            script.append("mount -t proc -o \(options.joined(separator: ",")) proc /proc")
        }
        if isOn("PrivateTmp") {
            // A checkout under /tmp (a CI clone) would vanish with the private /tmp: its build
            // directory is carried over, the installed daemon is never there.
            let carried = Self.buildDirectory(of: daemon).flatMap { $0.hasPrefix("/tmp/") || $0.hasPrefix("/var/tmp/") ? $0 : nil }
            if let carried { script.append("mkdir -p '\(scratch)/carried' && mount --bind '\(carried)' '\(scratch)/carried'") }
            script.append("mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp")
            script.append("mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /var/tmp")
            if let carried {
                script.append("mkdir -p '\(carried)' && mount --bind '\(scratch)/carried' '\(carried)' && umount '\(scratch)/carried'")
            }
        }
        if isOn("PrivateDevices") {
            let dev = "\(scratch)/dev"
            script.append("mkdir -p \(dev) && mount -t tmpfs -o mode=755,nosuid,noexec tmpfs \(dev)")
            script.append("for d in null zero full random urandom tty; do touch \(dev)/$d; mount --bind /dev/$d \(dev)/$d; done")
            script.append("mkdir \(dev)/shm \(dev)/pts && ln -s /proc/self/fd \(dev)/fd && ln -s /proc/self/fd/0 \(dev)/stdin "
                          + "&& ln -s /proc/self/fd/1 \(dev)/stdout && ln -s /proc/self/fd/2 \(dev)/stderr")
            for (path, optional) in boundDevices {
                let target = dev + path.dropFirst("/dev".count)
                let bind = "touch '\(target)' && mount --bind '\(path)' '\(target)'"
                script.append(optional ? "if [ -e '\(path)' ]; then \(bind); fi" : bind)
            }
            script.append("mount --move \(dev) /dev")
        }
        if isOn("ProtectHome") {
            script.append("for d in /home /root /run/user; do if [ -d $d ]; then mount -t tmpfs -o ro,mode=000 tmpfs $d; fi; done")
        }
        let mode = value("StateDirectoryMode") ?? "0755"
        script.append("mkdir -p '\(stateDirectory)' && chmod \(mode) '\(stateDirectory)'")
        if value("ProtectSystem") == "strict" {
            // The state directory becomes a mount of its own, so that it stays writable.
            script.append("mount --bind '\(stateDirectory)' '\(stateDirectory)'")
            var kept = ["/proc", "/dev", "/tmp", "/var/tmp", stateDirectory]
            if !(isOn("ProtectKernelTunables") || isOn("ProtectControlGroups")) { kept.append("/sys") }
            let keep = kept.map { "'\($0)'" }.joined(separator: " ")
            script.append("""
                for mp in $(awk '{print $5}' /proc/self/mountinfo | sort -u); do \
                case "$mp" in *\\\\*) continue;; esac; \
                skip=; for k in \(keep); do case "$mp" in "$k"|"$k"/*) skip=1;; esac; done; \
                [ -n "$skip" ] || mount -o remount,bind,ro "$mp" 2>/dev/null || true; done
                """)
        } else if isOn("ProtectKernelTunables") || isOn("ProtectControlGroups") {
            script.append("for mp in $(awk '$5 ~ \"^/sys\" {print $5}' /proc/self/mountinfo); do mount -o remount,bind,ro \"$mp\" || true; done")
        }
        if let umask = value("UMask") { script.append("umask \(umask)") }
        script.append("exec \"$@\"")

        let bounding = capabilities("CapabilityBoundingSet")
        let ambient = capabilities("AmbientCapabilities")
        var setpriv = ["/usr/bin/setpriv"]
        if let user = value("User") {
            // Without Group=, systemd uses the user's primary group.
            let group = value("Group") ?? getpwnam(user).map { String($0.pointee.pw_gid) } ?? user
            setpriv += ["--reuid=\(user)", "--regid=\(group)", "--init-groups"]
        } else if let group = value("Group") {
            setpriv.append("--regid=\(group)")
        }
        if directives.contains(where: { $0.key == "CapabilityBoundingSet" }) {
            setpriv.append("--bounding-set=" + (["-all"] + bounding.map { "+\($0)" }).joined(separator: ","))
        }
        setpriv.append("--inh-caps=" + (["-all"] + ambient.map { "+\($0)" }).joined(separator: ","))
        setpriv.append("--ambient-caps=" + (["-all"] + ambient.map { "+\($0)" }).joined(separator: ","))
        if isOn("NoNewPrivileges") { setpriv.append("--no-new-privs") }

        var variables = ["PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]
        variables.merge(environment) { $1 }
        variables.merge(try self.environment(bootID: bootID, unitName: unitName)) { $1 }
        let env = ["/usr/bin/env", "-i"] + variables.keys.sorted().map { "\($0)=\(variables[$0]!)" }

        return ["/usr/bin/unshare"] + namespaces + ["--", "/bin/sh", "-c", script.joined(separator: "\n"), "localauthd-sandbox"]
            + setpriv + ["--"] + env + [daemon] + arguments
    }
}
