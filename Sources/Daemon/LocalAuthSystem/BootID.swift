// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// This boot's id, which tells the ledger whether a saved passcode delay was started in this boot
/// (it goes on where it was) or in another (it starts again).
///
/// `localauthd.service` hides `/proc/sys` (`ProcSubset=pid`), so the unit hands the id over as
/// `LOCALAUTHD_BOOT_ID=%b`; elsewhere it is read from `/proc/sys/kernel/random/boot_id`. With
/// neither the daemon does not start: an id made up per start would restart every running delay
/// at full length on each restart, and an idle-exiting daemon restarts often.
public enum BootID {
    public static let environmentVariable = "LOCALAUTHD_BOOT_ID"
    public static let kernelFile = "/proc/sys/kernel/random/boot_id"

    /// Why there is no boot id.
    public struct Unavailable: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
    }

    /// The boot id from `LOCALAUTHD_BOOT_ID` if set (it must be valid), else from `kernelFile`,
    /// in the kernel's form (lowercase UUID with dashes), so that both sources give the same id.
    public static func current(environment: String? = getenv(environmentVariable).map { String(cString: $0) },
                               kernelFile: String = kernelFile) throws(Unavailable) -> String {
        if let given = environment {
            guard let id = canonical(given) else {
                throw Unavailable(description: "\(environmentVariable) is not a boot id (32 hex digits, or a UUID with dashes); "
                                  + "the unit sets it to %b.")
            }
            return id
        }
        guard let text = SmallFile.read(kernelFile, limit: 64) else {
            throw Unavailable(description: "cannot read \(kernelFile) (hidden by ProcSubset=pid?) and \(environmentVariable) is not set; "
                              + "set it to the boot id (the unit passes %b) so that passcode delays survive restarts.")
        }
        guard let id = canonical(text.hasSuffix("\n") ? String(text.dropLast()) : text) else {
            throw Unavailable(description: "\(kernelFile) holds no boot id.")
        }
        return id
    }

    /// `text` as a lowercase UUID with dashes, if it is 32 hex digits or a UUID with dashes.
    public static func canonical(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        let dashes = [8, 13, 18, 23]
        let digits: [UInt8]
        if bytes.count == 36 {
            guard dashes.allSatisfy({ bytes[$0] == UInt8(ascii: "-") }) else { return nil }
            digits = bytes.enumerated().filter { !dashes.contains($0.offset) }.map(\.element)
        } else if bytes.count == 32 {
            digits = bytes
        } else {
            return nil
        }
        guard digits.allSatisfy({ (48...57).contains($0) || (65...70).contains($0) || (97...102).contains($0) }) else { return nil }
        var out = digits.map { (65...70).contains($0) ? $0 + 32 : $0 }
        for offset in dashes { out.insert(UInt8(ascii: "-"), at: offset) }
        return String(decoding: out, as: UTF8.self)
    }
}
