// SPDX-License-Identifier: Apache-2.0
import LocalAuthAPI

/// A value per ``BiometricModality``, one slot each: what the engine keeps per sensor. The engine
/// reads these some fifty times an evaluation, where a dictionary hashed the key every time.
/// Iterates in `BiometricModality.allCases` order.
struct ModalityMap<Value> {
    private var fingerprint: Value?
    private var face: Value?

    init() {}

    var isEmpty: Bool { fingerprint == nil && face == nil }

    /// The values present, in `allCases` order.
    var values: some Sequence<Value> { BiometricModality.allCases.lazy.compactMap { self[$0] } }

    // The accessors are inlined: an accessor coroutine called out of line allocated its frame on
    // the heap at every use (eight times an evaluation).
    subscript(modality: BiometricModality) -> Value? {
        @inline(__always) get {
            switch modality {
            case .fingerprint: fingerprint
            case .face: face
            }
        }
        @inline(__always) _modify {
            switch modality {
            case .fingerprint: yield &fingerprint
            case .face: yield &face
            }
        }
    }

    /// The modality's value, `value` first stored when there is none; mutated in place.
    subscript(modality: BiometricModality, default value: @autoclosure () -> Value) -> Value {
        @inline(__always) get { self[modality] ?? value() }
        @inline(__always) _modify {
            switch modality {
            case .fingerprint:
                if fingerprint == nil { fingerprint = value() }
                yield &fingerprint!
            case .face:
                if face == nil { face = value() }
                yield &face!
            }
        }
    }

    @discardableResult
    mutating func removeValue(forKey modality: BiometricModality) -> Value? {
        defer { self[modality] = nil }
        return self[modality]
    }
}

extension ModalityMap: Sequence {
    func makeIterator() -> some IteratorProtocol<(key: BiometricModality, value: Value)> {
        BiometricModality.allCases.lazy.compactMap { modality in self[modality].map { (modality, $0) } }.makeIterator()
    }
}

extension ModalityMap: Sendable where Value: Sendable {}
extension ModalityMap: Equatable where Value: Equatable {}
extension ModalityMap: Hashable where Value: Hashable {}

extension ModalityMap: ExpressibleByDictionaryLiteral {
    /// A later entry for the same modality replaces an earlier one.
    init(dictionaryLiteral elements: (BiometricModality, Value)...) {
        for (modality, value) in elements { self[modality] = value }
    }
}
