#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Looks up the process's and the system's users and groups.
public func currentUserID() -> UInt32 { getuid() }

/// The gid of the group called `name`, or nil when there is none.
public func groupID(named name: String) -> UInt32? {
    var group = group()
    var result: UnsafeMutablePointer<group>?
    var buffer = [CChar](repeating: 0, count: 16_384)
    guard getgrnam_r(name, &group, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
    return group.gr_gid
}
