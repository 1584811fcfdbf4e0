// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI
import Testing

/// Every context has exactly one object path: other spellings of its number are no object.
@Suite struct ContextPathTests {
    let root = LocalAuthBusNames.contextRoot

    @Test func aContextsPathNamesItsNumber() {
        for number: UInt64 in [1, 9, 10, 4711, 1 << 53, 9_999_999_999_999_999_999, 10_000_000_000_000_000_000, UInt64.max] {
            #expect(LocalAuthBusNames.contextNumber(in: LocalAuthBusNames.contextPath(number)) == number)
        }
    }

    @Test func otherPathsNameNoContext() {
        let paths = [root, "\(root)/", "\(root)/0", "\(root)/05", "\(root)/+5", "\(root)/-5", "\(root)/5/6", "\(root)/5 ",
                     "\(root)/18446744073709551616", "\(root)/99999999999999999999", "\(root)/100000000000000000000", "\(root)/5:", "\(root)x/5", "\(root)5", LocalAuthBusNames.managerPath, "/", ""]
        for path in paths {
            #expect(LocalAuthBusNames.contextNumber(in: path) == nil, "\(path)")
        }
    }
}
