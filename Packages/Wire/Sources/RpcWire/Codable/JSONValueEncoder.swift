#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Encodes `Encodable` values into ``JSONValue`` trees, and through ``JSONSerializer`` into
/// JSON text.
///
/// The encoder builds the tree directly; no text is produced unless you ask for bytes.
///
/// - Integers of every width become ``JSONValue/integer(_:)``. An unsigned value above
///   `Int64.max` cannot be held exactly and fails with `EncodingError.invalidValue` rather
///   than being rounded to a double; encode such values as strings.
/// - `Double` and `Float` become ``JSONValue/double(_:)`` (a `Float` is stored as the double
///   with its shortest decimal digits, so `Float(0.1)` is written `0.1`). Non-finite values
///   follow ``nonConformingFloatEncodingStrategy``.
/// - `Date` and `Data` follow their strategies; `URL` becomes its absolute string and
///   `Decimal` a number; a ``JSONValue`` is inserted as it is.
/// - Object members keep the order in which they are encoded. Encoding the same key twice
///   keeps its first position and the last value.
///
/// Errors are `EncodingError`s whose context holds the coding path of the offending value.
///
/// ```swift
/// struct Point: Codable { var x: Int; var y: Int }
/// let value = try JSONValueEncoder().encode(Point(x: 1, y: 2))   // {"x":1,"y":2}
/// ```
public struct JSONValueEncoder: Sendable {
    /// How `Date` values are encoded.
    public enum DateEncodingStrategy: Sendable {
        /// The date's own `Encodable` form (seconds since 2001-01-01 as a number).
        case deferredToDate
        /// Seconds since 1970-01-01 as a number.
        case secondsSince1970
        /// Milliseconds since 1970-01-01 as a number.
        case millisecondsSince1970
        /// An RFC 3339 (ISO 8601) string in UTC such as `2024-05-06T07:08:09Z`. Fractions of
        /// a second are dropped, as Foundation's `JSONEncoder` drops them; dates whose year
        /// is outside 0000 to 9999 fail to encode.
        case iso8601
        /// A closure that encodes the date into the given encoder. Encoding nothing yields an
        /// empty object.
        case custom(@Sendable (Date, any Encoder) throws -> Void)
    }

    /// How `Data` values are encoded.
    public enum DataEncodingStrategy: Sendable {
        /// A base64 string (standard alphabet, padded).
        case base64
        /// The data's own `Encodable` form (an array of byte values).
        case deferredToData
        /// A closure that encodes the data into the given encoder. Encoding nothing yields an
        /// empty object.
        case custom(@Sendable (Data, any Encoder) throws -> Void)
    }

    /// How the keys of keyed containers become object keys.
    ///
    /// Keys of `[String: Value]` dictionaries are data rather than names, so they are never
    /// converted.
    public enum KeyEncodingStrategy: Sendable {
        /// Each key's `stringValue` as it is.
        case useDefaultKeys
        /// Camel case to snake case: `myURLValue` becomes `my_url_value`. Words start at an
        /// uppercase letter after a lowercase one and at the last capital of an acronym;
        /// leading and trailing underscores are kept.
        case convertToSnakeCase
        /// A closure given the full coding path (ending with the key to convert) that returns
        /// the key to write.
        case custom(@Sendable (_ codingPath: [any CodingKey]) -> any CodingKey)
    }

    /// How infinite and NaN floating-point values, which JSON cannot hold, are encoded.
    public enum NonConformingFloatEncodingStrategy: Sendable, Hashable {
        /// Fail with `EncodingError.invalidValue`.
        case `throw`
        /// Write the given strings instead.
        case convertToString(positiveInfinity: String, negativeInfinity: String, nan: String)
    }

    /// How `Date` values are encoded; ``DateEncodingStrategy/deferredToDate`` by default.
    public var dateEncodingStrategy: DateEncodingStrategy = .deferredToDate
    /// How `Data` values are encoded; ``DataEncodingStrategy/base64`` by default.
    public var dataEncodingStrategy: DataEncodingStrategy = .base64
    /// How keys are written; ``KeyEncodingStrategy/useDefaultKeys`` by default.
    public var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
    /// How non-finite floating-point values are encoded;
    /// ``NonConformingFloatEncodingStrategy/throw`` by default.
    public var nonConformingFloatEncodingStrategy: NonConformingFloatEncodingStrategy = .throw
    /// Values handed to every `encode(to:)` through `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates an encoder with the default strategies.
    public init() {}

    /// Encodes `value` as a JSON value.
    ///
    /// - Throws: `EncodingError.invalidValue` when a value cannot be represented, or when the
    ///   top-level value encodes nothing; errors thrown by `encode(to:)` or custom strategies.
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let encoder = ValueEncoder(options: EncodingOptions(self), path: .root)
        let node = try encoder.encodeNested(value, at: .root, isTopLevel: true)
        return node.finished()
    }

    /// Encodes `value` as compact JSON text in UTF-8.
    ///
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - canonical: Whether object members are sorted by key (see
    ///     ``JSONSerializer/Configuration/canonical``).
    /// - Throws: The errors of ``encode(_:)``; `EncodingError.invalidValue` wrapping a
    ///   ``WireError`` when the tree cannot be written (nesting deeper than 256 levels, or a
    ///   non-finite double inside an encoded ``JSONValue``).
    public func encodeToBytes<T: Encodable>(_ value: T, canonical: Bool = false) throws -> [UInt8] {
        let tree = try encode(value)
        do {
            return try JSONSerializer(configuration: .init(canonical: canonical)).serialize(tree)
        } catch {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [], debugDescription: "Unable to write JSON text: \(error.message)",
                    underlyingError: error))
        }
    }

    /// Encodes `value` as compact JSON text.
    ///
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - canonical: Whether object members are sorted by key (see
    ///     ``JSONSerializer/Configuration/canonical``).
    /// - Throws: The errors of ``encodeToBytes(_:canonical:)``.
    public func encodeToString<T: Encodable>(_ value: T, canonical: Bool = false) throws -> String {
        String(decoding: try encodeToBytes(value, canonical: canonical), as: UTF8.self)
    }
}
