// SPDX-License-Identifier: Apache-2.0
/// Encodes `Encodable` state as compact JSON with sorted keys, without Foundation (see ``JSONValue``).
///
/// Writes what Foundation's `JSONEncoder` with `.sortedKeys` writes for the state types (nil
/// optionals left out, numbers as JSON numbers); non-finite numbers are refused as there.
enum StateJSONEncoder {
    struct Failure: Error, Sendable, CustomStringConvertible {
        let description: String
    }

    static func encode<Value: Encodable>(_ value: Value) throws(Failure) -> [UInt8] {
        let root = Node()
        do { try value.encode(to: NodeEncoder(node: root, codingPath: [])) } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "\(error)")
        }
        return root.json.serialized
    }

    /// One value under construction; containers fill it in place, so nested containers work.
    final class Node {
        enum Content { case empty, value(JSONValue), object([String: Node]), array([Node]) }
        var content = Content.empty

        var json: JSONValue {
            switch content {
            case .empty: .object([:])
            case .value(let value): value
            case .object(let members): .object(members.mapValues(\.json))
            case .array(let elements): .array(elements.map(\.json))
            }
        }
    }

    static func number<Number: BinaryFloatingPoint & LosslessStringConvertible>(_ value: Number, _ path: [any CodingKey]) throws(Failure) -> JSONValue {
        guard value.isFinite else {
            throw Failure(description: "\(value) at \(path.map(\.stringValue).joined(separator: ".")) is not a finite number")
        }
        // Swift's shortest round-trip text ("1.5", "1e-05", "1700000000.0") is valid JSON.
        return .number(value.description)
    }

    struct NodeEncoder: Encoder {
        let node: Node
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            if case .object = node.content {} else { node.content = .object([:]) }
            return KeyedEncodingContainer(Keyed<Key>(node: node, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            if case .array = node.content {} else { node.content = .array([]) }
            return Unkeyed(node: node, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer { Single(node: node, codingPath: codingPath) }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let codingPath: [any CodingKey]

        private func child(_ key: Key) -> Node {
            let child = Node()
            if case .object(var members) = node.content {
                members[key.stringValue] = child
                node.content = .object(members)
            }
            return child
        }

        mutating func encodeNil(forKey key: Key) throws { child(key).content = .value(.null) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try value.encode(to: NodeEncoder(node: child(key), codingPath: codingPath + [key]))
        }
        mutating func encode(_ value: Bool, forKey key: Key) throws { child(key).content = .value(.bool(value)) }
        mutating func encode(_ value: String, forKey key: Key) throws { child(key).content = .value(.string(value)) }
        mutating func encode(_ value: Double, forKey key: Key) throws { child(key).content = .value(try number(value, codingPath + [key])) }
        mutating func encode(_ value: Float, forKey key: Key) throws { child(key).content = .value(try number(value, codingPath + [key])) }
        mutating func encode(_ value: Int, forKey key: Key) throws { child(key).content = .value(.number("\(value)")) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { child(key).content = .value(.number("\(value)")) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { child(key).content = .value(.number("\(value)")) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { child(key).content = .value(.number("\(value)")) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { child(key).content = .value(.number("\(value)")) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { child(key).content = .value(.number("\(value)")) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { child(key).content = .value(.number("\(value)")) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { child(key).content = .value(.number("\(value)")) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { child(key).content = .value(.number("\(value)")) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { child(key).content = .value(.number("\(value)")) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            NodeEncoder(node: child(key), codingPath: codingPath + [key]).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            NodeEncoder(node: child(key), codingPath: codingPath + [key]).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder { NodeEncoder(node: child(Key(stringValue: "super")!), codingPath: codingPath) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { NodeEncoder(node: child(key), codingPath: codingPath + [key]) }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]
        var count: Int {
            if case .array(let elements) = node.content { return elements.count }
            return 0
        }

        private func next() -> Node {
            let child = Node()
            if case .array(var elements) = node.content {
                elements.append(child)
                node.content = .array(elements)
            }
            return child
        }

        mutating func encodeNil() throws { next().content = .value(.null) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try value.encode(to: NodeEncoder(node: next(), codingPath: codingPath))
        }
        mutating func encode(_ value: Bool) throws { next().content = .value(.bool(value)) }
        mutating func encode(_ value: String) throws { next().content = .value(.string(value)) }
        mutating func encode(_ value: Double) throws { next().content = .value(try number(value, codingPath)) }
        mutating func encode(_ value: Float) throws { next().content = .value(try number(value, codingPath)) }
        mutating func encode(_ value: Int) throws { next().content = .value(.number("\(value)")) }
        mutating func encode(_ value: Int8) throws { next().content = .value(.number("\(value)")) }
        mutating func encode(_ value: Int16) throws { next().content = .value(.number("\(value)")) }
        mutating func encode(_ value: Int32) throws { next().content = .value(.number("\(value)")) }
        mutating func encode(_ value: Int64) throws { next().content = .value(.number("\(value)")) }
        mutating func encode(_ value: UInt) throws { next().content = .value(.number("\(value)")) }
        mutating func encode(_ value: UInt8) throws { next().content = .value(.number("\(value)")) }
        mutating func encode(_ value: UInt16) throws { next().content = .value(.number("\(value)")) }
        mutating func encode(_ value: UInt32) throws { next().content = .value(.number("\(value)")) }
        mutating func encode(_ value: UInt64) throws { next().content = .value(.number("\(value)")) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            NodeEncoder(node: next(), codingPath: codingPath).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            NodeEncoder(node: next(), codingPath: codingPath).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder { NodeEncoder(node: next(), codingPath: codingPath) }
    }

    struct Single: SingleValueEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.content = .value(.null) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try value.encode(to: NodeEncoder(node: node, codingPath: codingPath))
        }
        mutating func encode(_ value: Bool) throws { node.content = .value(.bool(value)) }
        mutating func encode(_ value: String) throws { node.content = .value(.string(value)) }
        mutating func encode(_ value: Double) throws { node.content = .value(try number(value, codingPath)) }
        mutating func encode(_ value: Float) throws { node.content = .value(try number(value, codingPath)) }
        mutating func encode(_ value: Int) throws { node.content = .value(.number("\(value)")) }
        mutating func encode(_ value: Int8) throws { node.content = .value(.number("\(value)")) }
        mutating func encode(_ value: Int16) throws { node.content = .value(.number("\(value)")) }
        mutating func encode(_ value: Int32) throws { node.content = .value(.number("\(value)")) }
        mutating func encode(_ value: Int64) throws { node.content = .value(.number("\(value)")) }
        mutating func encode(_ value: UInt) throws { node.content = .value(.number("\(value)")) }
        mutating func encode(_ value: UInt8) throws { node.content = .value(.number("\(value)")) }
        mutating func encode(_ value: UInt16) throws { node.content = .value(.number("\(value)")) }
        mutating func encode(_ value: UInt32) throws { node.content = .value(.number("\(value)")) }
        mutating func encode(_ value: UInt64) throws { node.content = .value(.number("\(value)")) }
    }
}
