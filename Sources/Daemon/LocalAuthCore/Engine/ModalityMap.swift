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

    subscript(modality: BiometricModality) -> Value? {
        get {
            switch modality {
            case .fingerprint: fingerprint
            case .face: face
            }
        }
        _modify {
            switch modality {
            case .fingerprint: yield &fingerprint
            case .face: yield &face
            }
        }
    }

    /// The modality's value, `value` first stored when there is none; mutated in place.
    subscript(modality: BiometricModality, default value: @autoclosure () -> Value) -> Value {
        get { self[modality] ?? value() }
        _modify {
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
