// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The app's Info.plist values this module uses: `NSFaceIDUsageDescription`, sent to localauthd
/// as the context option `FaceUsageDescription` (without it, face is not offered to the app when
/// the daemon asks for consent, as iOS refuses Face ID to an app without it).
///
/// Read once, from `Bundle.main` first. On Linux swift-corelibs-foundation's `Bundle.main` of a
/// plain executable is the executable's directory: it reads `Info.plist` there or in
/// `Resources/Info.plist` beside it (also an iOS-style `App.app/App` with `App.app/Info.plist`).
/// It does not read the macOS layout, `App.app/Contents/MacOS/App` with `App.app/Contents/Info.plist`,
/// so that file is read too when the executable sits in a `Contents/MacOS` directory.
enum InfoPlist {
    static let faceIDUsageDescriptionKey = "NSFaceIDUsageDescription"

    /// The app's `NSFaceIDUsageDescription`, or nil when it has none (or an empty one).
    static let faceIDUsageDescription: String? = string(faceIDUsageDescriptionKey)

    /// A string value of the app's Info.plist.
    static func string(_ key: String) -> String? {
        if let value = Bundle.main.object(forInfoDictionaryKey: key) as? String, !value.isEmpty { return value }
        return Bundle.main.executablePath.flatMap { macOSLayoutInfoDictionary(executablePath: $0)?[key] as? String }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Info.plists are small; a larger file is not read.
    private static let maximumSize = 1 << 20

    /// `Contents/Info.plist` of an executable in `Contents/MacOS`, or nil.
    private static func macOSLayoutInfoDictionary(executablePath: String) -> [String: Any]? {
        let macOS = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
        let contents = macOS.deletingLastPathComponent()
        guard macOS.lastPathComponent == "MacOS", contents.lastPathComponent == "Contents" else { return nil }
        let file = contents.appendingPathComponent("Info.plist")
        guard let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber,
              size.intValue <= maximumSize, let data = try? Data(contentsOf: file)
        else { return nil }
        return (try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [String: Any]
    }
}
