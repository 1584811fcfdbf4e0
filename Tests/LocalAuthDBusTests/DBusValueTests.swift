// SPDX-License-Identifier: Apache-2.0
@testable import LocalAuthDBus
import Testing

/// One value of every type this layer supports, nested the ways the daemon uses them.
let everyKindOfValue: [DBusValue] = [
    .byte(0xFE), .bool(true), .bool(false), .int16(-2), .uint16(65535), .int32(-70000), .uint32(4_000_000_000),
    .int64(Int64.min), .uint64(UInt64.max), .double(-0.5), .string("grüße 🐧"), .string(""),
    .objectPath("/org/localauth/LocalAuthentication1/context/7"), .signature("a{sv}"),
    .bytes([0, 1, 2, 255]), .bytes([]),
    .strings(["a", "b"]), .array(elementSignature: "u", []),
    // a(ss), a(ssb)
    .array(elementSignature: "(ss)", [.structure([.string("fingerprint"), .string("Fingerprint")])]),
    .array(elementSignature: "(ssb)", [.structure([.string("face"), .string("Face"), .bool(false)])]),
    .structure([.uint32(1), .structure([.string("nested"), .double(2)])]),
    .vardict([
        "b": .bool(true), "u": .uint32(3), "t": .uint64(1 << 40), "s": .string("reason"),
        "a(ss)": .array(elementSignature: "(ss)", [.structure([.string("k"), .string("v")])]),
        "nested": .variant(.variant(.int32(-1))),
        "inner": .vardict(["x": .bytes([9])]),
    ]),
    .dictionary(keySignature: "u", valueSignature: "as", [.uint32(1): .strings(["x"])]),
    .variant(.array(elementSignature: "v", [.variant(.string("deep")), .variant(.uint64(5))])),
]

@Suite struct DBusValueTests {
    @Test func signaturesDescribeTheValues() {
        #expect(DBusValue.vardict([:]).signature == "a{sv}")
        #expect(DBusValue.array(elementSignature: "(ss)", []).signature == "a(ss)")
        #expect(DBusValue.bytes([1]).signature == "ay")
        #expect(DBusValue.structure([.string("a"), .bool(true)]).signature == "(sb)")
        #expect(DBusValue.signature(of: [.uint32(1), .variant(.bool(true))]) == "uv")
    }

    @Test func everyValueSurvivesAMessage() throws {
        let message = try DBusMessage.methodCall(
            destination: nil, path: "/test", interface: "org.example.Test", member: "Echo", arguments: everyKindOfValue, on: nil)
        #expect(message.signature == DBusValue.signature(of: everyKindOfValue))
        #expect(try message.arguments() == everyKindOfValue)
    }

    @Test func byteArraysReadBackAsBytesWhicheverWayTheyWereWritten() throws {
        let message = try DBusMessage.methodCall(
            destination: nil, path: "/test", interface: nil, member: "M",
            arguments: [.array(elementSignature: "y", [.byte(1), .byte(2)])], on: nil)
        #expect(try message.arguments() == [.bytes([1, 2])])
    }

    @Test func vardictUnwrapsVariants() {
        let value = DBusValue.vardict(["n": .uint32(4), "v": .variant(.bool(true))])
        #expect(value.vardict == ["n": .uint32(4), "v": .variant(.bool(true))])
        #expect(DBusValue.uint32(1).vardict == nil)
    }

    @Test(arguments: [
        DBusValue.string("nul\u{0}inside"),
        .objectPath("not/a/path"), .objectPath("/trailing/"), .objectPath("/with-dash"),
        .signature("a{"), .signature("(q"),
        .array(elementSignature: "s", [.uint32(1)]),
        .array(elementSignature: "zz", []),
        .dictionary(keySignature: "v", valueSignature: "s", [:]),
        .dictionary(keySignature: "s", valueSignature: "v", [.string("k"): .string("not a variant")]),
        .structure([]),
        .variant(.string("ok\u{0}")),
    ])
    func invalidValuesAreRejectedBeforeLibdbusSeesThem(_ value: DBusValue) {
        #expect(throws: DBusError.self) { try value.validate() }
        let error = #expect(throws: DBusError.self) {
            _ = try DBusMessage.methodCall(destination: nil, path: "/test", interface: nil, member: "M", arguments: [value], on: nil)
        }
        #expect(error?.name == .invalidArgs)
    }

    @Test func tooDeepNestingIsRejected() {
        var value = DBusValue.uint32(1)
        for _ in 0..<40 { value = .variant(value) }
        let error = #expect(throws: DBusError.self) { try value.validate() }
        #expect(error?.name == .invalidArgs)
    }

    @Test func invalidHeaderStringsAreRejected() {
        let cases: [() throws -> DBusMessage] = [
            { try .methodCall(destination: nil, path: "bad", interface: nil, member: "M", arguments: [], on: nil) },
            { try .methodCall(destination: nil, path: "/ok", interface: "no-dots", member: "M", arguments: [], on: nil) },
            { try .methodCall(destination: nil, path: "/ok", interface: nil, member: "Bad.Member", arguments: [], on: nil) },
            { try .methodCall(destination: "bad..name", path: "/ok", interface: nil, member: "M", arguments: [], on: nil) },
            { try .signal(path: "/ok", interface: "a.b", member: "S", destination: ":bad name", arguments: [], on: nil) },
            { try .signal(path: "/ok", interface: "a.b\u{0}", member: "S", destination: nil, arguments: [], on: nil) },
        ]
        for make in cases {
            let error = #expect(throws: DBusError.self) { _ = try make() }
            #expect(error?.name == .invalidArgs)
        }
    }

    @Test func argumentReaderReadsInOrderAndRejectsMismatches() throws {
        var reader = DBusArgumentReader([.uint32(7), .string("s"), .vardict(["k": .bool(true)])])
        #expect(try reader.uint32() == 7)
        #expect(try reader.string() == "s")
        #expect(try reader.vardict() == ["k": .bool(true)])
        try reader.finish()
        #expect(throws: DBusError.invalidArgs("expected at least 4 arguments, got 3")) { try reader.string() }

        var wrong = DBusArgumentReader([.string("x"), .uint32(1)])
        let error = #expect(throws: DBusError.self) { try wrong.uint32() }
        #expect(error?.name == .invalidArgs)
        #expect(error?.message == "argument 1 should be of type u, got s")
        #expect(throws: DBusError.self) { try DBusArgumentReader([.bool(true)]).finish() }
    }

    @Test func matchRulesQuoteTheirValues() throws {
        let rule = DBusMatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: "it's")
        #expect(try rule.ruleString() == #"type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='it'\''s'"#)
        #expect(throws: DBusError.self) { try DBusMatchRule(path: "x',eavesdrop='true").ruleString() }
    }
}
