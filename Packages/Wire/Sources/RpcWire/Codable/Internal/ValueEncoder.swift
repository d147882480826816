#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `Encoder` behind ``JSONValueEncoder``: one instance per value being encoded, holding
/// what that value encoded.
///
/// It is also its own single-value container.
final class ValueEncoder: Encoder {
    let options: EncodingOptions
    let path: CodingPath
    /// What this encoder has produced so far.
    var node: EncodedNode?

    init(options: EncodingOptions, path: CodingPath) {
        self.options = options
        self.path = path
    }

    var codingPath: [any CodingKey] { path.keys }

    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ValueKeyedEncodingContainer<Key>(encoder: self, object: objectBox()))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        ValueUnkeyedEncodingContainer(encoder: self, array: arrayBox())
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        self
    }

    /// The object this encoder writes into; asking again returns the same object, and asking
    /// after something else was encoded replaces it.
    func objectBox() -> EncodedNode.ObjectBox {
        if case .object(let box)? = node {
            return box
        }
        let box = EncodedNode.ObjectBox()
        node = .object(box)
        return box
    }

    /// The array this encoder writes into; see ``objectBox()``.
    func arrayBox() -> EncodedNode.ArrayBox {
        if case .array(let box)? = node {
            return box
        }
        let box = EncodedNode.ArrayBox()
        node = .array(box)
        return box
    }

    // MARK: - Nested values

    /// Encodes a value that sits at `path`: the types the encoder handles itself directly,
    /// anything else through its `encode(to:)` with a fresh encoder.
    func encodeNested<T: Encodable>(_ value: T, at path: CodingPath, isTopLevel: Bool = false) throws -> EncodedNode {
        if let scalar = try encodeScalar(value, at: path) {
            return .value(scalar)
        }
        if T.self == JSONValue.self, let json = value as? JSONValue {
            return .value(json)
        }
        if T.self == Date.self, let date = value as? Date {
            return try encodeDate(date, at: path)
        }
        if T.self == Data.self, let data = value as? Data {
            return try encodeData(data, at: path)
        }
        if T.self == URL.self, let url = value as? URL {
            return .value(.string(url.absoluteString))
        }
        if T.self == Decimal.self, let decimal = value as? Decimal {
            return .value(try boxDecimal(decimal, at: path))
        }
        if !options.usesDefaultKeys, let dictionary = value as? any StringKeyedEncodableDictionary {
            return try dictionary.encodeMembers(with: self, at: path)
        }
        let encoder = ValueEncoder(options: options, path: path)
        try value.encode(to: encoder)
        if let node = encoder.node {
            return node
        }
        if isTopLevel {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        return .object(EncodedNode.ObjectBox())
    }

    /// The JSON value of a standard scalar, or `nil` when `T` is not one.
    ///
    /// Generic code such as `Array.encode(to:)` hands its elements to the generic
    /// `encode(_:)`; answering here spares each element an encoder of its own.
    @inline(__always)
    private func encodeScalar<T: Encodable>(_ value: T, at path: CodingPath) throws -> JSONValue? {
        // Each cast below reinterprets the value as the very type `T` was just compared with.
        if T.self == String.self {
            return .string(unsafeBitCast(value, to: String.self))
        }
        if T.self == Int.self {
            return .integer(Int64(unsafeBitCast(value, to: Int.self)))
        }
        if T.self == Double.self {
            return try box(unsafeBitCast(value, to: Double.self), at: path.keys)
        }
        if T.self == Bool.self {
            return .bool(unsafeBitCast(value, to: Bool.self))
        }
        if T.self == Int64.self {
            return .integer(unsafeBitCast(value, to: Int64.self))
        }
        if T.self == Float.self {
            return try box(unsafeBitCast(value, to: Float.self), at: path.keys)
        }
        if T.self == Int32.self {
            return .integer(Int64(unsafeBitCast(value, to: Int32.self)))
        }
        if T.self == UInt8.self {
            return .integer(Int64(unsafeBitCast(value, to: UInt8.self)))
        }
        if T.self == UInt64.self {
            return try box(unsafeBitCast(value, to: UInt64.self), at: path.keys)
        }
        if T.self == UInt.self {
            return try box(unsafeBitCast(value, to: UInt.self), at: path.keys)
        }
        if T.self == UInt32.self {
            return .integer(Int64(unsafeBitCast(value, to: UInt32.self)))
        }
        if T.self == Int16.self {
            return .integer(Int64(unsafeBitCast(value, to: Int16.self)))
        }
        if T.self == UInt16.self {
            return .integer(Int64(unsafeBitCast(value, to: UInt16.self)))
        }
        if T.self == Int8.self {
            return .integer(Int64(unsafeBitCast(value, to: Int8.self)))
        }
        return nil
    }

    /// Runs `body` with a fresh encoder at `path` and returns what it encoded, or an empty
    /// object when it encoded nothing.
    private func encodeWithEncoder(at path: CodingPath, _ body: (ValueEncoder) throws -> Void) throws -> EncodedNode {
        let encoder = ValueEncoder(options: options, path: path)
        try body(encoder)
        return encoder.node ?? .object(EncodedNode.ObjectBox())
    }

    private func encodeDate(_ date: Date, at path: CodingPath) throws -> EncodedNode {
        switch options.dateStrategy {
        case .deferredToDate:
            return try encodeWithEncoder(at: path) { try date.encode(to: $0) }
        case .secondsSince1970:
            return .value(try box(date.timeIntervalSince1970, at: path.keys))
        case .millisecondsSince1970:
            return .value(try box(date.timeIntervalSince1970 * 1000, at: path.keys))
        case .iso8601:
            guard let text = ISO8601Timestamp.format(secondsSince1970: date.timeIntervalSince1970) else {
                throw EncodingError.invalidValue(
                    date,
                    EncodingError.Context(
                        codingPath: path.keys,
                        debugDescription: "Date \(date.timeIntervalSince1970) seconds after 1970 has no RFC 3339 form (its year is outside 0000 to 9999)."))
            }
            return .value(.string(text))
        case .custom(let closure):
            return try encodeWithEncoder(at: path) { try closure(date, $0) }
        }
    }

    private func encodeData(_ data: Data, at path: CodingPath) throws -> EncodedNode {
        switch options.dataStrategy {
        case .base64:
            return .value(.string(Base64.encode(Array(data), padded: true)))
        case .deferredToData:
            return try encodeWithEncoder(at: path) { try data.encode(to: $0) }
        case .custom(let closure):
            return try encodeWithEncoder(at: path) { try closure(data, $0) }
        }
    }

    private func boxDecimal(_ decimal: Decimal, at path: CodingPath) throws -> JSONValue {
        let text = decimal.description
        if let integer = Int64(text) {
            return .integer(integer)
        }
        if let number = Double(text), number.isFinite {
            return .double(number)
        }
        throw EncodingError.invalidValue(
            decimal,
            EncodingError.Context(codingPath: path.keys, debugDescription: "Decimal \(text) is not a finite number."))
    }

    // MARK: - Scalars

    /// An integer of any width as ``JSONValue/integer(_:)``.
    func box<Integer: FixedWidthInteger>(_ value: Integer, at path: @autoclosure () -> [any CodingKey]) throws -> JSONValue {
        guard let exact = Int64(exactly: value) else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: path(),
                    debugDescription: "\(Integer.self) value \(value) does not fit in a JSON integer (Int64); encode it as a string instead."))
        }
        return .integer(exact)
    }

    /// A double, or what the non-conforming float strategy makes of a non-finite one.
    func box(_ value: Double, at path: @autoclosure () -> [any CodingKey]) throws -> JSONValue {
        if value.isFinite {
            return .double(value)
        }
        return try nonConforming(value, typeName: "Double", at: path())
    }

    /// A float as the double with its shortest decimal digits, so that it is written as
    /// briefly as the float itself prints.
    func box(_ value: Float, at path: @autoclosure () -> [any CodingKey]) throws -> JSONValue {
        if value.isFinite {
            return .double(Double(value.description) ?? Double(value))
        }
        return try nonConforming(Double(value), typeName: "Float", at: path())
    }

    private func nonConforming(_ value: Double, typeName: String, at path: [any CodingKey]) throws -> JSONValue {
        guard case .convertToString(let positiveInfinity, let negativeInfinity, let nan) = options.floatStrategy else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: path,
                    debugDescription: "Unable to encode \(typeName).\(value) directly in JSON; JSON numbers must be finite."))
        }
        if value.isNaN {
            return .string(nan)
        }
        return .string(value > 0 ? positiveInfinity : negativeInfinity)
    }

    /// The object key `key` is written as, after the key strategy.
    func name(for key: some CodingKey, in containerPath: CodingPath) -> String {
        switch options.keyStrategy {
        case .useDefaultKeys:
            return key.stringValue
        case .convertToSnakeCase:
            return KeyCaseConversion.snakeCase(key.stringValue)
        case .custom(let convert):
            return convert(containerPath.keys(appending: key)).stringValue
        }
    }
}

// MARK: - Single value container

extension ValueEncoder: SingleValueEncodingContainer {
    func encodeNil() throws { node = .value(.null) }
    func encode(_ value: Bool) throws { node = .value(.bool(value)) }
    func encode(_ value: String) throws { node = .value(.string(value)) }
    func encode(_ value: Double) throws { node = .value(try box(value, at: path.keys)) }
    func encode(_ value: Float) throws { node = .value(try box(value, at: path.keys)) }
    func encode(_ value: Int) throws { node = .value(.integer(Int64(value))) }
    func encode(_ value: Int8) throws { node = .value(.integer(Int64(value))) }
    func encode(_ value: Int16) throws { node = .value(.integer(Int64(value))) }
    func encode(_ value: Int32) throws { node = .value(.integer(Int64(value))) }
    func encode(_ value: Int64) throws { node = .value(.integer(value)) }
    func encode(_ value: Int128) throws { node = .value(try box(value, at: path.keys)) }
    func encode(_ value: UInt) throws { node = .value(try box(value, at: path.keys)) }
    func encode(_ value: UInt8) throws { node = .value(.integer(Int64(value))) }
    func encode(_ value: UInt16) throws { node = .value(.integer(Int64(value))) }
    func encode(_ value: UInt32) throws { node = .value(.integer(Int64(value))) }
    func encode(_ value: UInt64) throws { node = .value(try box(value, at: path.keys)) }
    func encode(_ value: UInt128) throws { node = .value(try box(value, at: path.keys)) }

    func encode<T: Encodable>(_ value: T) throws {
        node = try encodeNested(value, at: path)
    }
}
