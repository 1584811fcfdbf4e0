// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
/// Exit statuses other than the LAErrors' (see `LocalAuthErrorName.exitStatus`); sysexits values where one fits.
enum ExitStatus {
    static let success: Int32 = 0
    /// The daemon refused the input (InvalidArgs, NotSupported, NotEvaluating, RightNotAuthorized), or two passcodes differ.
    static let refused: Int32 = 65
    /// The daemon failed (Failed, or an unexpected reply).
    static let failed: Int32 = 70
    /// Bad command line.
    static let usage: Int32 = 64
    /// No bus, or no localauthd on it, or no reply in time.
    static let unreachable: Int32 = 69
    /// Busy or LimitsExceeded: try again later.
    static let temporary: Int32 = 75
    /// AccessDenied.
    static let accessDenied: Int32 = 77
    /// RightNotFound: the application has no right of that identifier (EX_NOINPUT).
    static let rightNotFound: Int32 = 66
    /// RightInvalidated: the biometry enrolled when a biometry-current-set right was saved changed.
    static let rightInvalidated: Int32 = 14
    /// Ctrl-C outside `evaluate` (which exits with userCancel's status instead).
    static let interrupted: Int32 = 130

    /// The table printed by `localauth --help` and in `localauth(1)`; the README summarises it.
    static var table: String {
        var lines = ["  0    success (can-evaluate: the policy can be evaluated)"]
        for error in LocalAuthErrorName.allCases {
            guard let code = error.laErrorCode else { continue }
            let status = "\(error.exitStatus)".padding(toLength: 5)
            lines.append("  \(status)\(error.swiftName) (LAError \(code.rawValue))")
        }
        lines += [
            "  14   rightInvalidated (biometry changed since the right was saved)",
            "  64   usage error",
            "  65   refused by localauthd: invalid input or not supported",
            "  66   rightNotFound (no right of that identifier)",
            "  69   localauthd or the bus not reachable",
            "  70   localauthd failed",
            "  75   busy or a limit reached: try again later",
            "  77   access denied",
            "  130  interrupted (Ctrl-C; during evaluate: userCancel's status)",
        ]
        return lines.joined(separator: "\n")
    }
}

extension String {
    /// Pads with spaces on the right to at least `length` characters.
    func padding(toLength length: Int) -> String {
        count >= length ? self + " " : self + String(repeating: " ", count: length - count)
    }
}
