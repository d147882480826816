#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Decodes `Decodable` values from ``JSONValue`` trees, or from JSON text through
/// ``JSONParser``.
///
/// Decoding from a ``JSONValue`` reads the tree directly; no text is produced in between.
///
/// - Integers of every width are range-checked; a number that does not fit, or a double with
///   a fraction where an integer is expected, fails with `DecodingError.dataCorrupted`. A
///   double that holds an integer exactly (`3.0`) decodes as an integer.
/// - `Double` and `Float` accept integers and doubles (a `Float` fails with
///   `dataCorrupted` when the number is beyond its range); non-finite values follow
///   ``nonConformingFloatDecodingStrategy``.
/// - `Bool` decodes only from `true` and `false`, `String` only from strings.
/// - `null` where a value is required fails with `DecodingError.valueNotFound`, any other
///   wrong kind with `DecodingError.typeMismatch`, and a missing key with
///   `DecodingError.keyNotFound`.
/// - `Date` and `Data` follow their strategies; `URL` decodes from a string and `Decimal`
///   from a number; a ``JSONValue`` is handed over as it is.
///
/// Every error's context holds the coding path of the offending value; elements of arrays
/// appear in it as keys with an `intValue` and the string value `Index N`.
///
/// ```swift
/// struct Point: Codable { var x: Int; var y: Int }
/// let point = try JSONValueDecoder().decode(Point.self, from: #"{"x":1,"y":2}"#)
/// ```
///
/// A string literal argument is JSON text and an array literal of integers is UTF-8 bytes, as
/// in the example above. To decode from a literal ``JSONValue``, say so:
/// `decode(String.self, from: .string("text"))` or `decode([Int].self, from: [1, 2] as JSONValue)`.
public struct JSONValueDecoder: Sendable {
    /// How `Date` values are decoded.
    public enum DateDecodingStrategy: Sendable {
        /// The date's own `Decodable` form (seconds since 2001-01-01 as a number).
        case deferredToDate
        /// Seconds since 1970-01-01 as a number.
        case secondsSince1970
        /// Milliseconds since 1970-01-01 as a number.
        case millisecondsSince1970
        /// An RFC 3339 (ISO 8601) date-time string: `2024-05-06T07:08:09Z`, optionally with a
        /// fraction of a second and with a `±HH:MM` offset instead of `Z`.
        case iso8601
        /// A closure that decodes the date from the given decoder.
        case custom(@Sendable (any Decoder) throws -> Date)
    }

    /// How `Data` values are decoded.
    public enum DataDecodingStrategy: Sendable {
        /// A base64 string (standard alphabet, padded).
        case base64
        /// The data's own `Decodable` form (an array of byte values).
        case deferredToData
        /// A closure that decodes the data from the given decoder.
        case custom(@Sendable (any Decoder) throws -> Data)
    }

    /// How object keys are matched to the keys of keyed containers.
    ///
    /// Keys of `[String: Value]` dictionaries are data rather than names, so they are never
    /// converted.
    public enum KeyDecodingStrategy: Sendable {
        /// Object keys must equal each key's `stringValue`, byte for byte.
        case useDefaultKeys
        /// Snake case to camel case: `my_url_value` matches `myUrlValue`. The first word is
        /// lowercased and later ones capitalised; leading and trailing underscores are kept,
        /// and a key without inner underscores is used as it is.
        case convertFromSnakeCase
        /// A closure given the full coding path (ending with the object key, as a key whose
        /// `stringValue` is the key text) that returns the key to match.
        case custom(@Sendable (_ codingPath: [any CodingKey]) -> any CodingKey)
    }

    /// How infinite and NaN floating-point values, which JSON cannot hold, are decoded.
    public enum NonConformingFloatDecodingStrategy: Sendable, Hashable {
        /// Accept numbers only.
        case `throw`
        /// Also accept these strings for infinities and NaN.
        case convertFromString(positiveInfinity: String, negativeInfinity: String, nan: String)
    }

    /// How `Date` values are decoded; ``DateDecodingStrategy/deferredToDate`` by default.
    public var dateDecodingStrategy: DateDecodingStrategy = .deferredToDate
    /// How `Data` values are decoded; ``DataDecodingStrategy/base64`` by default.
    public var dataDecodingStrategy: DataDecodingStrategy = .base64
    /// How keys are matched; ``KeyDecodingStrategy/useDefaultKeys`` by default.
    public var keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys
    /// How non-finite floating-point values are decoded;
    /// ``NonConformingFloatDecodingStrategy/throw`` by default.
    public var nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy = .throw
    /// Values handed to every `init(from:)` through `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// The limits and policies applied when decoding from text.
    public var parserConfiguration: JSONParser.Configuration = .default

    /// Creates a decoder with the default strategies.
    public init() {}

    /// Decodes a value of type `type` from a JSON value.
    ///
    /// - Throws: `DecodingError` describing the first mismatch, with its coding path; errors
    ///   thrown by `init(from:)` or custom strategies.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        let decoder = ValueDecoder(value: value, path: .root, options: DecodingOptions(self))
        return try decoder.decodeNested(T.self, from: value, at: .root)
    }

    /// Parses JSON text given as UTF-8 bytes and decodes a value of type `type` from it.
    ///
    /// - Throws: `DecodingError.dataCorrupted` with the ``WireError`` as its underlying
    ///   error when the text is not valid JSON; otherwise the errors of decoding from a
    ///   ``JSONValue``.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let value: JSONValue
        do {
            value = try JSONParser(configuration: parserConfiguration).parse(bytes)
        } catch {
            throw Self.parseFailure(error)
        }
        return try decode(T.self, from: value)
    }

    /// Parses JSON text and decodes a value of type `type` from it.
    ///
    /// - Throws: `DecodingError.dataCorrupted` with the ``WireError`` as its underlying
    ///   error when the text is not valid JSON; otherwise the errors of decoding from a
    ///   ``JSONValue``.
    public func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        let value: JSONValue
        do {
            value = try JSONParser(configuration: parserConfiguration).parse(text)
        } catch {
            throw Self.parseFailure(error)
        }
        return try decode(T.self, from: value)
    }

    private static func parseFailure(_ error: WireError) -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: [], debugDescription: "The given data was not valid JSON: \(error)",
                underlyingError: error))
    }
}
