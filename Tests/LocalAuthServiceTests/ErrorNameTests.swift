// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import Testing

/// The contract's error table (`LocalAuthErrorName`) and the core's codes describe the same errors,
/// so the daemon has a D-Bus name for every outcome and clients a code for every name.
@Suite("Error names: one table")
struct ErrorNameTests {
    /// Every code but Apple's macOS-only accessory and dimension codes, which localauthd never produces.
    static let producedCodes = LAErrorCode.allCases.filter { ![.biometryNotPaired, .biometryDisconnected, .invalidDimensions].contains($0) }

    @Test(arguments: producedCodes)
    func everyCoreCodeHasTheContractsNameForIt(code: LAErrorCode) throws {
        let name = try #require(LocalAuthErrorName(laErrorCode: code), "LAErrorCode.\(code) has no LocalAuthErrorName")
        #expect(name.rawValue == code.name)
        #expect(name.dbusName == "org.localauth.LocalAuthentication1.Error." + code.name)
        #expect(LocalAuthErrorName(dbusName: name.dbusName) == name)
    }

    @Test func everyLAErrorOfTheContractIsACoreCodeAndTheRestAreNot() {
        for name in LocalAuthErrorName.allCases {
            if let code = name.laErrorCode {
                #expect(Self.producedCodes.contains(code), "\(name) carries \(code), which the daemon never produces")
            } else {
                #expect([.busy, .notEvaluating, .rightNotFound, .rightNotAuthorized, .rightInvalidated].contains(name), "\(name)")
            }
        }
        #expect(LocalAuthErrorName(dbusName: "org.freedesktop.DBus.Error.Failed") == nil)
        #expect(LocalAuthErrorName(dbusName: "org.localauth.LocalAuthentication1.Error.NoSuchThing") == nil)
    }
}
