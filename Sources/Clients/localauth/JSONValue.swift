// SPDX-License-Identifier: Apache-2.0
/// A JSON value with ordered object keys, so `--json` output is byte-for-byte stable.
enum JSONValue: Sendable, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral {
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    init(stringLiteral value: String) { self = .string(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }

    /// Compact, one line.
    var serialized: String {
        switch self {
        case .bool(let value): value ? "true" : "false"
        case .int(let value): "\(value)"
        case .string(let value): Self.quoted(value)
        case .array(let elements): "[" + elements.map(\.serialized).joined(separator: ",") + "]"
        case .object(let fields): "{" + fields.map { Self.quoted($0.0) + ":" + $0.1.serialized }.joined(separator: ",") + "}"
        }
    }

    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
