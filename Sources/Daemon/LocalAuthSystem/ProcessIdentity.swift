// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import LocalAuthCore

/// Who an app is, for per-app face consent, from what the kernel says about its process:
/// `flatpak:<app id>` when it runs in a Flatpak sandbox (its `/.flatpak-info`, or its
/// `app-flatpak-<id>-<n>.scope`), `snap:<name>` in a Snap (its `snap.<name>.…` scope or AppArmor
/// label), otherwise the path of its executable (`/proc/PID/exe`).
///
/// Under `localauthd.service` (`ProtectProc=invisible`) another user's `/proc/PID` is visible to
/// the daemon only with `CAP_SYS_PTRACE`, which the unit keeps for this alone (its system-call
/// filter denies ptrace and the other ways to use it). An identity that cannot be read is an
/// ``Unknown`` saying why, never a shared placeholder: such an app is offered no face and may not
/// be an agent.
///
/// What it protects against: a sandboxed (Flatpak, Snap) app cannot use another app's decision,
/// since it cannot leave its sandbox or change its executable. What it cannot: an unconfined
/// process of the same user can run the allowed executable itself (or ptrace it) and inherit its
/// decision; and a pid can be reused by a new process after the bus looked it up.
public enum ProcessIdentity {
    /// Why a process's app identity could not be read.
    public struct Unknown: Error, Sendable, Hashable, CustomStringConvertible {
        public enum Reason: Sendable, Hashable {
            /// The bus reported no process id for the connection.
            case noProcessID
            /// The process has exited (its pid names no process).
            case processGone
            /// The process exists but its `/proc` entries are hidden or closed to the daemon
            /// (`ProtectProc=invisible` or ptrace access rules without `CAP_SYS_PTRACE`).
            case permissionDenied
            /// Reading `/proc/PID/exe` failed otherwise (the errno).
            case unreadable(Int32)
        }

        public let pid: UInt32?
        public let reason: Reason

        public init(pid: UInt32?, _ reason: Reason) {
            self.pid = pid
            self.reason = reason
        }

        public var description: String {
            let process = pid.map { "process \($0)" } ?? "the process"
            switch reason {
            case .noProcessID:
                return "the bus reported no process id for the connection"
            case .processGone:
                return "\(process) has exited"
            case .permissionDenied:
                return "\(process) is hidden from the service or closed to it (the service needs CAP_SYS_PTRACE to read other users' /proc/PID/exe)"
            case .unreadable(let code):
                return "reading /proc/\(pid.map(String.init) ?? "?")/exe failed: \(String(cString: strerror(code)))"
            }
        }
    }

    public static func app(ofProcess pid: UInt32?) -> Result<AppIdentity, Unknown> {
        guard let pid, pid > 0 else { return .failure(Unknown(pid: pid, .noProcessID)) }
        if let sandboxed = sandbox(ofProcess: pid) { return .success(sandboxed) }
        return executable(ofProcess: pid).map(AppIdentity.init(executable:))
    }

    /// The Flatpak or Snap identity of a process, if it runs in one of those sandboxes.
    static func sandbox(ofProcess pid: UInt32) -> AppIdentity? {
        if let info = SmallFile.read("/proc/\(pid)/root/.flatpak-info"), let name = flatpakName(info: info) {
            return AppIdentity(sandbox: .flatpak, name: name)
        }
        if let cgroup = SmallFile.read("/proc/\(pid)/cgroup"), let scoped = sandbox(cgroup: cgroup) { return scoped }
        for path in ["/proc/\(pid)/attr/apparmor/current", "/proc/\(pid)/attr/current"] {
            if let label = SmallFile.read(path), let snap = snap(appArmorLabel: label) { return snap }
        }
        return nil
    }

    /// The app id in a Flatpak sandbox's `/.flatpak-info` (`name=` of its `[Application]` group).
    public static func flatpakName(info: String) -> String? {
        var inApplication = false
        for line in info.split(separator: "\n") {
            if line.hasPrefix("[") {
                inApplication = line == "[Application]"
            } else if inApplication, line.hasPrefix("name=") {
                let name = line.dropFirst("name=".count)
                return validName(name) ? String(name) : nil
            }
        }
        return nil
    }

    /// The Flatpak or Snap identity in a `/proc/PID/cgroup` text, if the process runs in such a scope.
    public static func sandbox(cgroup: String) -> AppIdentity? {
        for line in cgroup.split(separator: "\n") {
            for unit in line.split(separator: "/").reversed() {
                if unit.hasPrefix("app-flatpak-"), unit.hasSuffix(".scope") {
                    let body = unit.dropFirst("app-flatpak-".count).dropLast(".scope".count)
                    // app-flatpak-<app id>-<number>.scope
                    guard let dash = body.lastIndex(of: "-"), validName(body[..<dash]) else { continue }
                    return AppIdentity(sandbox: .flatpak, name: body[..<dash])
                }
                if unit.hasPrefix("snap."), unit.hasSuffix(".scope") || unit.hasSuffix(".service") {
                    let name = unit.dropFirst("snap.".count).prefix { $0 != "." }
                    if validName(name) { return AppIdentity(sandbox: .snap, name: name) }
                }
            }
        }
        return nil
    }

    /// The snap of an AppArmor label such as `snap.firefox.firefox (enforce)`; nil for
    /// `unconfined` and every other profile.
    public static func snap(appArmorLabel label: String) -> AppIdentity? {
        let profile = label.prefix { $0 != " " && $0 != "\n" && $0 != "\0" }
        guard profile.hasPrefix("snap.") else { return nil }
        let name = profile.dropFirst("snap.".count).prefix { $0 != "." }
        return validName(name) ? AppIdentity(sandbox: .snap, name: name) : nil
    }

    /// Flatpak ids and snap names are ASCII letters, digits, `.`, `_` and `-`.
    private static func validName(_ name: Substring) -> Bool {
        !name.isEmpty && name.utf8.count <= 255
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || "0123456789._-".unicodeScalars.contains($0)) }
    }

    static func executable(ofProcess pid: UInt32) -> Result<String, Unknown> {
        var buffer = [CChar](repeating: 0, count: 4097)
        let length = readlink("/proc/\(pid)/exe", &buffer, 4096)
        guard length > 0 else {
            let code = errno
            switch code {
            case EACCES, EPERM:
                return .failure(Unknown(pid: pid, .permissionDenied))
            case ENOENT, ESRCH:
                // With ProtectProc=invisible a hidden process looks gone: ask the kernel whether it lives.
                return .failure(Unknown(pid: pid, kill(pid_t(pid), 0) == 0 || errno == EPERM ? .permissionDenied : .processGone))
            default:
                return .failure(Unknown(pid: pid, .unreadable(code)))
            }
        }
        let bytes = buffer[0..<length].map { UInt8(bitPattern: $0) }
        var path = String(decoding: bytes, as: UTF8.self)
        if path.hasSuffix(" (deleted)") { path.removeLast(" (deleted)".count) }
        // A path may hold any byte but / and NUL: controls and bidi characters are escaped so the
        // identity cannot forge a line or reorder the sentence it is shown in.
        return .success(DisplayText.controlsEscaped(path))
    }
}
