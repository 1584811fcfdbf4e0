// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Looks up the process's and the system's users and groups.
public func currentUserID() -> UInt32 { getuid() }

/// The gid of the group called `name`, or nil when there is none (or the lookup fails).
public func groupID(named name: String) -> UInt32? {
    var group = group()
    var result: UnsafeMutablePointer<group>?
    var size = 16_384
    while true {
        var buffer = [CChar](repeating: 0, count: size)
        let status = getgrnam_r(name, &group, &buffer, buffer.count, &result)
        // A group with many members needs a bigger buffer than most.
        if status == ERANGE, size < 1 << 22 {
            size *= 4
            continue
        }
        guard status == 0, result != nil else { return nil }
        return group.gr_gid
    }
}
