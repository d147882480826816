#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `Decoder` behind ``JSONValueDecoder``.
///
/// One instance serves a whole decode: before decoding a nested value it switches its
/// ``value`` and ``path`` to that value's, and switches back afterwards, so nested values
/// cost no decoder allocation. Containers are structs that keep their own object or array.
/// It is also its own single-value container.
final class ValueDecoder: Decoder {
    let options: DecodingOptions
    /// The value being decoded.
    private(set) var value: JSONValue
    /// The coding path of ``value``.
    private(set) var path: CodingPath

    init(value: JSONValue, path: CodingPath, options: DecodingOptions) {
        self.value = value
        self.path = path
        self.options = options
    }

    var codingPath: [any CodingKey] { path.keys }

    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw DecodingError.mismatch(expecting: [String: Any].self, found: value, at: path.keys)
        }
        return KeyedDecodingContainer(ValueKeyedDecodingContainer<Key>(decoder: self, object: object, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw DecodingError.mismatch(expecting: [Any].self, found: value, at: path.keys)
        }
        return ValueUnkeyedDecodingContainer(decoder: self, elements: elements, path: path)
    }

    func singleValueContainer() -> any SingleValueDecodingContainer {
        self
    }

    // MARK: - Nested values

    /// Decodes the value at `path`: the types the decoder handles itself directly, anything
    /// else through its `init(from:)` with this decoder switched to the value.
    func decodeNested<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: CodingPath) throws -> T {
        try decodeValue(T.self, from: value, errorPath: path.keys, nestedPath: path)
    }

    /// Decodes a value of any type.
    ///
    /// Standard scalars are read directly, which matters because generic code such as
    /// `Array.init(from:)` asks for its elements through the generic `decode(_:)`. The path
    /// of the value is only built when the value is not a scalar (`nestedPath`) or when
    /// decoding fails (`errorPath`).
    ///
    /// Nothing here is wrapped in an optional of `T`: in unspecialised generic code an
    /// optional of a type parameter costs a run-time metadata look-up on every call.
    @inline(__always)
    func decodeValue<T: Decodable>(
        _ type: T.Type, from value: JSONValue,
        errorPath: @autoclosure () -> [any CodingKey], nestedPath: @autoclosure () -> CodingPath
    ) throws -> T {
        // Each cast below reinterprets a value as the very type `T` was just compared with.
        if T.self == String.self {
            return unsafeBitCast(try unboxString(value, at: errorPath()), to: T.self)
        }
        if T.self == Int.self {
            return unsafeBitCast(try unboxInteger(value, as: Int.self, at: errorPath()), to: T.self)
        }
        if T.self == Double.self {
            return unsafeBitCast(try unboxDouble(value, at: errorPath()), to: T.self)
        }
        if T.self == Bool.self {
            return unsafeBitCast(try unboxBool(value, at: errorPath()), to: T.self)
        }
        if T.self == Int64.self {
            return unsafeBitCast(try unboxInteger(value, as: Int64.self, at: errorPath()), to: T.self)
        }
        if T.self == Float.self {
            return unsafeBitCast(try unboxFloat(value, at: errorPath()), to: T.self)
        }
        if T.self == Int32.self {
            return unsafeBitCast(try unboxInteger(value, as: Int32.self, at: errorPath()), to: T.self)
        }
        if T.self == UInt8.self {
            return unsafeBitCast(try unboxInteger(value, as: UInt8.self, at: errorPath()), to: T.self)
        }
        if T.self == UInt64.self {
            return unsafeBitCast(try unboxInteger(value, as: UInt64.self, at: errorPath()), to: T.self)
        }
        if T.self == UInt.self {
            return unsafeBitCast(try unboxInteger(value, as: UInt.self, at: errorPath()), to: T.self)
        }
        if T.self == UInt32.self {
            return unsafeBitCast(try unboxInteger(value, as: UInt32.self, at: errorPath()), to: T.self)
        }
        if T.self == Int16.self {
            return unsafeBitCast(try unboxInteger(value, as: Int16.self, at: errorPath()), to: T.self)
        }
        if T.self == UInt16.self {
            return unsafeBitCast(try unboxInteger(value, as: UInt16.self, at: errorPath()), to: T.self)
        }
        if T.self == Int8.self {
            return unsafeBitCast(try unboxInteger(value, as: Int8.self, at: errorPath()), to: T.self)
        }
        return try decodeNonScalar(T.self, from: value, at: nestedPath())
    }

    /// Decodes a value whose type is not a standard scalar; `path` is only built when needed.
    private func decodeNonScalar<T: Decodable>(
        _ type: T.Type, from value: JSONValue, at path: @autoclosure () -> CodingPath
    ) throws -> T {
        // As above, each cast reinterprets a value as the type `T` was just compared with.
        if T.self == JSONValue.self {
            return unsafeBitCast(value, to: T.self)
        }
        // Arrays of scalars, read without `Array.init(from:)` and its per-element dispatch.
        if T.self == [String].self {
            return unsafeBitCast(try decodeArray(value, at: path, unboxString), to: T.self)
        }
        if T.self == [Int].self {
            return unsafeBitCast(try decodeArray(value, at: path) { try unboxInteger($0, as: Int.self, at: $1()) }, to: T.self)
        }
        if T.self == [Double].self {
            return unsafeBitCast(try decodeArray(value, at: path, unboxDouble), to: T.self)
        }
        if T.self == [Bool].self {
            return unsafeBitCast(try decodeArray(value, at: path, unboxBool), to: T.self)
        }
        if T.self == [Int64].self {
            return unsafeBitCast(try decodeArray(value, at: path) { try unboxInteger($0, as: Int64.self, at: $1()) }, to: T.self)
        }
        if T.self == Date.self {
            return unsafeBitCast(try decodeDate(from: value, at: path()), to: T.self)
        }
        if T.self == Data.self {
            return unsafeBitCast(try decodeData(from: value, at: path()), to: T.self)
        }
        if T.self == URL.self {
            return unsafeBitCast(try decodeURL(from: value, at: path()), to: T.self)
        }
        if T.self == Decimal.self {
            return unsafeBitCast(try decodeDecimal(from: value, at: path()), to: T.self)
        }
        if !options.usesDefaultKeys, T.self is any StringKeyedDecodableDictionary.Type {
            return try decodeStringKeyedDictionary(T.self, from: value, at: path())
        }
        return try decodeThroughInitializer(T.self, from: value, at: path())
    }

    /// Decodes `value` as a `[String: Value]` dictionary `T`, with its keys as written.
    @inline(never)
    private func decodeStringKeyedDictionary<T: Decodable>(
        _ type: T.Type, from value: JSONValue, at path: CodingPath
    ) throws -> T {
        guard let dictionaryType = T.self as? any StringKeyedDecodableDictionary.Type,
              let dictionary = try dictionaryType.decodeMembers(from: value, with: self, at: path) as? T
        else {
            return try decodeThroughInitializer(T.self, from: value, at: path)
        }
        return dictionary
    }

    /// Decodes an array whose elements `unbox` reads.
    private func decodeArray<Element>(
        _ value: JSONValue, at path: () -> CodingPath,
        _ unbox: (JSONValue, @autoclosure () -> [any CodingKey]) throws -> Element
    ) throws -> [Element] {
        guard case .array(let elements) = value else {
            throw DecodingError.mismatch(expecting: [Element].self, found: value, at: path().keys)
        }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for index in elements.indices {
            do {
                result.append(try unbox(elements[index], []))
            } catch {
                // Decode the element again, this time with its full path for the error.
                let elementPath = path().keys(appendingIndex: index)
                _ = try unbox(elements[index], elementPath)
                throw error
            }
        }
        return result
    }

    /// Decodes `value` through `T.init(from:)`, with this decoder switched to the value for
    /// the duration of the call.
    private func decodeThroughInitializer<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: CodingPath) throws -> T {
        let savedValue = self.value
        let savedPath = self.path
        self.value = value
        self.path = path
        defer {
            self.value = savedValue
            self.path = savedPath
        }
        return try T(from: self)
    }

    /// Runs `body` with this decoder switched to `value` at `path`.
    private func with<Result>(_ value: JSONValue, at path: CodingPath, _ body: () throws -> Result) rethrows -> Result {
        let savedValue = self.value
        let savedPath = self.path
        self.value = value
        self.path = path
        defer {
            self.value = savedValue
            self.path = savedPath
        }
        return try body()
    }

    private func decodeDate(from value: JSONValue, at path: CodingPath) throws -> Date {
        switch options.dateStrategy {
        case .deferredToDate:
            return try with(value, at: path) { try Date(from: self) }
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try unboxDouble(value, at: path.keys))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try unboxDouble(value, at: path.keys) / 1000)
        case .iso8601:
            let text = try unboxString(value, at: path.keys)
            guard let seconds = ISO8601Timestamp.parse(text) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: path.keys, debugDescription: "Expected an ISO 8601 date-time string but found \"\(text)\"."))
            }
            return Date(timeIntervalSince1970: seconds)
        case .custom(let closure):
            return try with(value, at: path) { try closure(self) }
        }
    }

    private func decodeData(from value: JSONValue, at path: CodingPath) throws -> Data {
        switch options.dataStrategy {
        case .base64:
            let text = try unboxString(value, at: path.keys)
            guard let bytes = Base64.decode(text) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: path.keys, debugDescription: "Expected base64 text but found \"\(text)\"."))
            }
            return Data(bytes)
        case .deferredToData:
            return try with(value, at: path) { try Data(from: self) }
        case .custom(let closure):
            return try with(value, at: path) { try closure(self) }
        }
    }

    private func decodeURL(from value: JSONValue, at path: CodingPath) throws -> URL {
        let text = try unboxString(value, at: path.keys)
        guard let url = URL(string: text) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: path.keys, debugDescription: "Expected a URL but found \"\(text)\"."))
        }
        return url
    }

    private func decodeDecimal(from value: JSONValue, at path: CodingPath) throws -> Decimal {
        switch value {
        case .integer(let integer):
            return Decimal(integer)
        case .double(let number):
            // The shortest digits of the double are the number as it was most likely written.
            var writer = JSONWriter()
            do {
                try writer.writeDouble(number)
            } catch {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: path.keys, debugDescription: "Number \(number) is not finite.", underlyingError: error))
            }
            return Decimal(string: String(decoding: writer.bytes, as: UTF8.self)) ?? Decimal(number)
        default:
            throw DecodingError.mismatch(expecting: Decimal.self, found: value, at: path.keys)
        }
    }

    // MARK: - Scalars

    func unboxBool(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case .bool(let flag) = value else {
            throw DecodingError.mismatch(expecting: Bool.self, found: value, at: path())
        }
        return flag
    }

    func unboxString(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> String {
        guard case .string(let string) = value else {
            throw DecodingError.mismatch(expecting: String.self, found: value, at: path())
        }
        return string
    }

    @inline(__always)
    func unboxInteger<Integer: FixedWidthInteger>(
        _ value: JSONValue, as type: Integer.Type, at path: @autoclosure () -> [any CodingKey]
    ) throws -> Integer {
        switch value {
        case .integer(let integer):
            if let exact = Integer(exactly: integer) {
                return exact
            }
        case .double(let number):
            if let exact = Integer(exactly: number) {
                return exact
            }
        default:
            throw DecodingError.mismatch(expecting: Integer.self, found: value, at: path())
        }
        throw DecodingError.numberOutOfRange(value, as: Integer.self, at: path())
    }

    func unboxDouble(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> Double {
        switch value {
        case .double(let number):
            return number
        case .integer(let integer):
            return Double(integer)
        case .string(let string):
            if case .convertFromString(let positiveInfinity, let negativeInfinity, let nan) = options.floatStrategy {
                if string == positiveInfinity { return .infinity }
                if string == negativeInfinity { return -.infinity }
                if string == nan { return .nan }
            }
            throw DecodingError.mismatch(expecting: Double.self, found: value, at: path())
        default:
            throw DecodingError.mismatch(expecting: Double.self, found: value, at: path())
        }
    }

    func unboxFloat(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> Float {
        switch value {
        case .double(let number):
            // A finite number that rounds to infinity is out of range; one that rounds to the
            // largest Float (as the shortest digits of that Float do) is not.
            let narrowed = Float(number)
            guard narrowed.isFinite || !number.isFinite else {
                throw DecodingError.numberOutOfRange(value, as: Float.self, at: path())
            }
            return narrowed
        case .integer(let integer):
            return Float(integer)
        case .string:
            do {
                return Float(try unboxDouble(value, at: path()))
            } catch {
                throw DecodingError.mismatch(expecting: Float.self, found: value, at: path())
            }
        default:
            throw DecodingError.mismatch(expecting: Float.self, found: value, at: path())
        }
    }
}

// MARK: - Single value container

extension ValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try unboxBool(value, at: path.keys) }
    func decode(_ type: String.Type) throws -> String { try unboxString(value, at: path.keys) }
    func decode(_ type: Double.Type) throws -> Double { try unboxDouble(value, at: path.keys) }
    func decode(_ type: Float.Type) throws -> Float { try unboxFloat(value, at: path.keys) }
    func decode(_ type: Int.Type) throws -> Int { try unboxInteger(value, as: type, at: path.keys) }
    func decode(_ type: Int8.Type) throws -> Int8 { try unboxInteger(value, as: type, at: path.keys) }
    func decode(_ type: Int16.Type) throws -> Int16 { try unboxInteger(value, as: type, at: path.keys) }
    func decode(_ type: Int32.Type) throws -> Int32 { try unboxInteger(value, as: type, at: path.keys) }
    func decode(_ type: Int64.Type) throws -> Int64 { try unboxInteger(value, as: type, at: path.keys) }
    func decode(_ type: Int128.Type) throws -> Int128 { try unboxInteger(value, as: type, at: path.keys) }
    func decode(_ type: UInt.Type) throws -> UInt { try unboxInteger(value, as: type, at: path.keys) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try unboxInteger(value, as: type, at: path.keys) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try unboxInteger(value, as: type, at: path.keys) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try unboxInteger(value, as: type, at: path.keys) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try unboxInteger(value, as: type, at: path.keys) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try unboxInteger(value, as: type, at: path.keys) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeNested(T.self, from: value, at: path)
    }
}
