// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import LocalAuthCore

/// Who an app is, for per-app face consent, from what the kernel says about its process:
/// `flatpak:<app id>` or `snap:<name>` when the process runs in such a sandbox's systemd scope,
/// otherwise the path of its executable (`/proc/PID/exe`).
///
/// What it protects against: a sandboxed (Flatpak, Snap) app cannot use another app's decision,
/// since it cannot leave its scope or change its executable. What it cannot: an unconfined
/// process of the same user can run the allowed executable itself (or ptrace it) and inherit its
/// decision; and a pid can be reused by a new process after the bus looked it up.
public enum ProcessIdentity {
    public static func app(ofProcess pid: UInt32?) -> String? {
        guard let pid, pid > 0 else { return nil }
        if let cgroup = SmallFile.read("/proc/\(pid)/cgroup"), let sandboxed = sandboxID(cgroup: cgroup) { return sandboxed }
        return executable(ofProcess: pid)
    }

    /// The Flatpak or Snap id in a `/proc/PID/cgroup` text, if the process runs in such a scope.
    public static func sandboxID(cgroup: String) -> String? {
        for line in cgroup.split(separator: "\n") {
            for unit in line.split(separator: "/").reversed() {
                if unit.hasPrefix("app-flatpak-"), unit.hasSuffix(".scope") {
                    let body = unit.dropFirst("app-flatpak-".count).dropLast(".scope".count)
                    // app-flatpak-<app id>-<number>.scope
                    guard let dash = body.lastIndex(of: "-") else { continue }
                    return "flatpak:" + body[..<dash]
                }
                if unit.hasPrefix("snap."), unit.hasSuffix(".scope") || unit.hasSuffix(".service") {
                    let name = unit.dropFirst("snap.".count).prefix { $0 != "." }
                    if !name.isEmpty { return "snap:" + name }
                }
            }
        }
        return nil
    }

    static func executable(ofProcess pid: UInt32) -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let length = readlink("/proc/\(pid)/exe", &buffer, 4096)
        guard length > 0 else { return nil }
        let bytes = buffer[0..<length].map { UInt8(bitPattern: $0) }
        var path = String(decoding: bytes, as: UTF8.self)
        if path.hasSuffix(" (deleted)") { path.removeLast(" (deleted)".count) }
        // A path may hold any byte but / and NUL: controls and bidi characters are escaped so the
        // identity cannot forge a line or reorder the sentence it is shown in.
        return DisplayText.controlsEscaped(path)
    }
}
