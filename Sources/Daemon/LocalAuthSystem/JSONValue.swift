// SPDX-License-Identifier: Apache-2.0
/// A JSON document as the state files hold it (RFC 8259), parsed and written without Foundation.
///
/// The daemon's state files are small and few; this type and ``StateJSON`` replace Foundation's
/// JSON coders so that the daemon does not link FoundationEssentials (about 2.4 MB of code, the
/// largest part of its idle memory). Numbers keep their text until a type is asked for, so an
/// integer is never rounded through a Double.
enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number's text, valid JSON number syntax.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Nesting deeper than this is refused: a state file never comes close, and the parser recurses.
    static let maximumDepth = 64

    struct SyntaxError: Error, Sendable, CustomStringConvertible {
        let message: String
        let offset: Int
        var description: String { "\(message) at byte \(offset)" }
    }

    /// Parses one JSON value that fills `bytes` (whitespace around it allowed); throws on anything
    /// else, duplicate object keys included.
    static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONValue {
        var parser = Parser(bytes: bytes)
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.error("unexpected text after the value") }
        return value
    }

    /// Compact JSON with object keys sorted, so that equal values are written as equal bytes.
    var serialized: [UInt8] {
        var output: [UInt8] = []
        write(to: &output)
        return output
    }

    private func write(to output: inout [UInt8]) {
        switch self {
        case .null: output += Array("null".utf8)
        case .bool(let value): output += Array((value ? "true" : "false").utf8)
        case .number(let text): output += Array(text.utf8)
        case .string(let text): Self.writeString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                members[key]!.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ text: String, to output: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): output += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): output += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): output += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20: output += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        func error(_ message: String) -> SyntaxError { SyntaxError(message: message, offset: position) }

        mutating func skipWhitespace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        mutating func value(depth: Int) throws(SyntaxError) -> JSONValue {
            guard depth < JSONValue.maximumDepth else { throw error("nested too deeply") }
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of the document") }
            switch bytes[position] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: return .number(try number())
            }
        }

        mutating func literal(_ word: String) throws(SyntaxError) {
            let expected = Array(word.utf8)
            guard bytes.count - position >= expected.count, Array(bytes[position..<position + expected.count]) == expected else {
                throw error("expected \(word)")
            }
            position += expected.count
        }

        mutating func object(depth: Int) throws(SyntaxError) -> JSONValue {
            position += 1
            var members: [String: JSONValue] = [:]
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a member name") }
                let key = try string()
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
                position += 1
                let member = try value(depth: depth + 1)
                guard members.updateValue(member, forKey: key) == nil else { throw error("member \"\(key)\" appears twice") }
                skipWhitespace()
                guard position < bytes.count else { throw error("unexpected end of the document") }
                position += 1
                switch bytes[position - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "}"): return .object(members)
                default: position -= 1; throw error("expected ',' or '}'")
                }
            }
        }

        mutating func array(depth: Int) throws(SyntaxError) -> JSONValue {
            position += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            while true {
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                guard position < bytes.count else { throw error("unexpected end of the document") }
                position += 1
                switch bytes[position - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "]"): return .array(elements)
                default: position -= 1; throw error("expected ',' or ']'")
                }
            }
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        mutating func number() throws(SyntaxError) -> String {
            let start = position
            func digits(_ parser: inout Parser) -> Int {
                let first = parser.position
                while parser.position < parser.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.position]) {
                    parser.position += 1
                }
                return parser.position - first
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
            let integerStart = position
            let integerDigits = digits(&self)
            guard integerDigits > 0 else { throw error("expected a value") }
            guard integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { throw error("a number has a leading zero") }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard digits(&self) > 0 else { throw error("expected digits after '.'") }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
                guard digits(&self) > 0 else { throw error("expected digits in the exponent") }
            }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }

        mutating func string() throws(SyntaxError) -> String {
            position += 1
            var utf8: [UInt8] = []
            while true {
                guard position < bytes.count else { throw error("unterminated string") }
                let byte = bytes[position]
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = String(validating: utf8, as: UTF8.self) else { throw error("a string is not UTF-8") }
                    return text
                case UInt8(ascii: "\\"):
                    guard position < bytes.count else { throw error("unterminated string") }
                    let escape = bytes[position]
                    position += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"): utf8 += try unicodeEscape()
                    default: throw error("unknown escape")
                    }
                case 0..<0x20:
                    throw error("a control character in a string")
                default:
                    utf8.append(byte)
                }
            }
        }

        /// After `\u`: four hex digits, or a surrogate pair of two escapes; the scalar as UTF-8.
        mutating func unicodeEscape() throws(SyntaxError) -> [UInt8] {
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                    throw error("a lone surrogate")
                }
                position += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("a lone surrogate") }
            return Array(String(Character(unicode)).utf8)
        }

        mutating func hex4() throws(SyntaxError) -> UInt32 {
            let isHexDigit = { (byte: UInt8) in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
            }
            guard bytes.count - position >= 4, bytes[position..<position + 4].allSatisfy(isHexDigit),
                  let value = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16) else {
                throw error("expected four hex digits")
            }
            position += 4
            return value
        }
    }
}
