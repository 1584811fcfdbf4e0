// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// What this client assumes of the daemon beyond the contract (names are in LocalAuthAPI).
enum LocalAuthDaemon {
    /// The daemon's title when `localizedFallbackTitle` is nil (Apple's default).
    static let defaultFallbackTitle = "Enter Password"
    /// The daemon's title when `localizedCancelTitle` is nil or empty.
    static let defaultCancelTitle = "Cancel"
    /// Titles and reasons longer than this many UTF-8 bytes are refused by the daemon.
    static let maximumTextLength = 512
    /// Evaluations have no client-side timeout (libdbus treats this as infinite); the daemon's
    /// `evaluation_timeout` ends them.
    static let evaluationTimeout = Duration.seconds(Int64(Int32.max))

    /// `text` without NULs and cut at a character boundary to the daemon's length limit.
    static func acceptableText(_ text: String) -> String {
        var result = ""
        var length = 0
        for character in text where !character.unicodeScalars.contains(where: { $0.value == 0 }) {
            length += character.utf8.count
            guard length <= maximumTextLength else { break }
            result.append(character)
        }
        return result
    }
}
