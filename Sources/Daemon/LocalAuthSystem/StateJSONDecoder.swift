// SPDX-License-Identifier: Apache-2.0
/// Decodes `Decodable` state from JSON without Foundation (see ``JSONValue``).
///
/// Reads what Foundation's `JSONDecoder` reads for the state types: unknown members are ignored,
/// a missing member is an error unless the property is optional, an integer must be exact and in
/// range (`1.0` reads as 1, `1.5` and `1e30` do not read as an Int).
enum StateJSONDecoder {
    struct Failure: Error, Sendable, CustomStringConvertible {
        let description: String
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws(Failure) -> Value {
        let json: JSONValue
        do { json = try JSONValue.parse(bytes) } catch { throw Failure(description: "not JSON: \(error)") }
        do { return try Value(from: NodeDecoder(value: json, codingPath: [])) } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "\(error)")
        }
    }

    static func failure(_ what: String, _ path: [any CodingKey]) -> Failure {
        let place = path.isEmpty ? "the document" : path.map(\.stringValue).joined(separator: ".")
        return Failure(description: "\(what) at \(place)")
    }

    static func bool(_ value: JSONValue, _ path: [any CodingKey]) throws(Failure) -> Bool {
        guard case .bool(let bool) = value else { throw failure("expected true or false", path) }
        return bool
    }

    static func string(_ value: JSONValue, _ path: [any CodingKey]) throws(Failure) -> String {
        guard case .string(let string) = value else { throw failure("expected a string", path) }
        return string
    }

    static func floatingPoint<Number: BinaryFloatingPoint & LosslessStringConvertible>(_ value: JSONValue, _ path: [any CodingKey]) throws(Failure) -> Number {
        guard case .number(let text) = value, let number = Number(text) else { throw failure("expected a number", path) }
        return number
    }

    /// Integer text as is; a number with a fraction or exponent only when it is a whole number in range.
    static func integer<Number: FixedWidthInteger>(_ value: JSONValue, _ path: [any CodingKey]) throws(Failure) -> Number {
        guard case .number(let text) = value else { throw failure("expected a whole number", path) }
        if let exact = Number(text) { return exact }
        guard let double = Double(text), double.rounded() == double, let exact = Number(exactly: double) else {
            throw failure("\(text) is not a whole number in \(Number.min)…\(Number.max)", path)
        }
        return exact
    }

    struct NodeDecoder: Decoder {
        let value: JSONValue
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard case .object(let members) = value else { throw failure("expected an object", codingPath) }
            return KeyedDecodingContainer(Keyed<Key>(members: members, codingPath: codingPath))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            guard case .array(let elements) = value else { throw failure("expected an array", codingPath) }
            return Unkeyed(elements: elements, codingPath: codingPath)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(value: value, codingPath: codingPath) }
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [String: JSONValue]
        let codingPath: [any CodingKey]

        var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }
        func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

        private func member(_ key: Key) throws(Failure) -> JSONValue {
            guard let member = members[key.stringValue] else { throw failure("missing member \"\(key.stringValue)\"", codingPath) }
            return member
        }

        func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try T(from: NodeDecoder(value: try member(key), codingPath: codingPath + [key]))
        }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try bool(try member(key), codingPath + [key]) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try string(try member(key), codingPath + [key]) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try floatingPoint(try member(key), codingPath + [key]) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try floatingPoint(try member(key), codingPath + [key]) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(try member(key), codingPath + [key]) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(try member(key), codingPath + [key]) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(try member(key), codingPath + [key]) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(try member(key), codingPath + [key]) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(try member(key), codingPath + [key]) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(try member(key), codingPath + [key]) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(try member(key), codingPath + [key]) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(try member(key), codingPath + [key]) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(try member(key), codingPath + [key]) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(try member(key), codingPath + [key]) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try NodeDecoder(value: try member(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try NodeDecoder(value: try member(key), codingPath: codingPath + [key]).unkeyedContainer()
        }
        func superDecoder() throws -> any Decoder { NodeDecoder(value: members["super"] ?? .null, codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder { NodeDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key]) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let elements: [JSONValue]
        let codingPath: [any CodingKey]
        private(set) var currentIndex = 0
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        init(elements: [JSONValue], codingPath: [any CodingKey]) {
            self.elements = elements
            self.codingPath = codingPath
        }

        private mutating func next() throws(Failure) -> JSONValue {
            guard !isAtEnd else { throw failure("the array ends early", codingPath) }
            defer { currentIndex += 1 }
            return elements[currentIndex]
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, elements[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: NodeDecoder(value: try next(), codingPath: codingPath)) }
        mutating func decode(_ type: Bool.Type) throws -> Bool { try bool(try next(), codingPath) }
        mutating func decode(_ type: String.Type) throws -> String { try string(try next(), codingPath) }
        mutating func decode(_ type: Double.Type) throws -> Double { try floatingPoint(try next(), codingPath) }
        mutating func decode(_ type: Float.Type) throws -> Float { try floatingPoint(try next(), codingPath) }
        mutating func decode(_ type: Int.Type) throws -> Int { try integer(try next(), codingPath) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(try next(), codingPath) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(try next(), codingPath) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(try next(), codingPath) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(try next(), codingPath) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(try next(), codingPath) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(try next(), codingPath) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(try next(), codingPath) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(try next(), codingPath) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(try next(), codingPath) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try NodeDecoder(value: try next(), codingPath: codingPath).container(keyedBy: type)
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try NodeDecoder(value: try next(), codingPath: codingPath).unkeyedContainer()
        }
        mutating func superDecoder() throws -> any Decoder { NodeDecoder(value: try next(), codingPath: codingPath) }
    }

    struct Single: SingleValueDecodingContainer {
        let value: JSONValue
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool { value == .null }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: NodeDecoder(value: value, codingPath: codingPath)) }
        func decode(_ type: Bool.Type) throws -> Bool { try bool(value, codingPath) }
        func decode(_ type: String.Type) throws -> String { try string(value, codingPath) }
        func decode(_ type: Double.Type) throws -> Double { try floatingPoint(value, codingPath) }
        func decode(_ type: Float.Type) throws -> Float { try floatingPoint(value, codingPath) }
        func decode(_ type: Int.Type) throws -> Int { try integer(value, codingPath) }
        func decode(_ type: Int8.Type) throws -> Int8 { try integer(value, codingPath) }
        func decode(_ type: Int16.Type) throws -> Int16 { try integer(value, codingPath) }
        func decode(_ type: Int32.Type) throws -> Int32 { try integer(value, codingPath) }
        func decode(_ type: Int64.Type) throws -> Int64 { try integer(value, codingPath) }
        func decode(_ type: UInt.Type) throws -> UInt { try integer(value, codingPath) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(value, codingPath) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(value, codingPath) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(value, codingPath) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(value, codingPath) }
    }
}
