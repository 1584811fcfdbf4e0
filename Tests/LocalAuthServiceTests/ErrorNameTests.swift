// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import LocalAuthCore
import Testing

/// The contract's error table (`LocalAuthErrorName`) and the core's codes describe the same errors,
/// so the daemon has a D-Bus name for every outcome and clients a code for every name.
@Suite("Error names: one table")
struct ErrorNameTests {
    @Test(arguments: LAErrorCode.allCases)
    func everyCoreCodeHasTheContractsNameForIt(code: LAErrorCode) throws {
        let name = try #require(LocalAuthErrorName(laErrorCode: code.rawValue), "LAErrorCode.\(code) has no LocalAuthErrorName")
        #expect(name.rawValue == code.name)
        #expect(name.dbusName == "org.localauth.LocalAuthentication1.Error." + code.name)
        #expect(LocalAuthErrorName(dbusName: name.dbusName) == name)
    }

    @Test func everyLAErrorOfTheContractIsACoreCodeAndTheRestAreNot() {
        for name in LocalAuthErrorName.allCases {
            if let code = name.laErrorCode {
                #expect(LAErrorCode(rawValue: code) != nil, "\(name) carries \(code), which the core does not know")
            } else {
                #expect([.busy, .notEvaluating, .rightNotFound, .rightNotAuthorized, .rightInvalidated].contains(name), "\(name)")
            }
        }
        #expect(LocalAuthErrorName(dbusName: "org.freedesktop.DBus.Error.Failed") == nil)
        #expect(LocalAuthErrorName(dbusName: "org.localauth.LocalAuthentication1.Error.NoSuchThing") == nil)
    }
}
