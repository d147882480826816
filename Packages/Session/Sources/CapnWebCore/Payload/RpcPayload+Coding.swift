#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif
internal import RpcWire

extension RpcPayload {
    /// Encodes a Swift value as a payload.
    ///
    /// Strings, numbers, booleans, arrays, dictionaries with string keys and `Encodable`
    /// structs become JSON-like values, with object members in encoding order. Non-finite
    /// numbers become ``double(_:)``; a `Date` becomes ``date(_:)``, `Data` becomes
    /// ``bytes(_:type:)`` and a top-level `URL` becomes ``url(_:)`` (a `URL` inside a struct is
    /// encoded as its text). ``RpcStub``, ``Ref``, ``RpcReadableStream``,
    /// ``RpcWritableStream`` and ``RpcPayload`` values, at any depth, are kept as they are.
    ///
    /// ```swift
    /// struct Todo: Codable { var id: Int; var title: String; var owner: Ref<User> }
    /// let payload = try RpcPayload(encoding: todo)
    /// ```
    ///
    /// - Throws: ``RpcError/remote(type:message:)`` with type `TypeError` (rejected locally,
    ///   like the reference implementation), naming the coding path, when the value cannot be
    ///   encoded (its `encode(to:)` threw, or an integer does not fit in `Int64`).
    public init<T: Encodable>(encoding value: T) throws(RpcError) {
        if let payload = Self.encodedScalar(value) {
            self = payload
            return
        }
        let table = PayloadCodingTable()
        let json: JSONValue
        do {
            json = try PayloadCoding.encoder(with: table).encode(value)
        } catch {
            throw .rejectedLocally("cannot encode \(T.self) at \(PayloadCoding.describe(error))")
        }
        do {
            self = try PayloadJSONConversion.payload(from: json, entries: table.snapshot())
        } catch {
            throw .rejectedLocally("cannot encode \(T.self) at \(error.pathText): \(error.message)")
        }
    }

    /// Decodes the payload as a Swift value.
    ///
    /// - Numbers: ``integer(_:)`` decodes as any integer type that holds it and as `Double`;
    ///   a ``double(_:)`` decodes as an integer type when it holds an integer exactly; a
    ///   ``bigint(_:)`` decodes as `Int64` or `Int` when it fits, otherwise as a `String`.
    /// - ``undefined`` reads as `null`: it decodes as `nil` and as a missing optional member.
    /// - ``date(_:)`` decodes as `Date` (or as its milliseconds), ``bytes(_:type:)`` as `Data`,
    ///   ``url(_:)`` as `URL` or `String`, ``headers(_:)`` as `[[String]]`, and an
    ///   ``error(_:)`` as an object with `name`, `message`, `stack` and its properties.
    /// - Non-finite doubles decode as `Double` and `Float`.
    /// - ``RpcStub``, ``Ref``, streams and nested ``RpcPayload`` members come back exactly.
    ///
    /// ```swift
    /// let todos = try result.decode([Todo].self)
    /// ```
    ///
    /// - Throws: ``RpcError/invalidResponse(_:)`` naming the coding path when the payload does
    ///   not fit `type`.
    @inlinable
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws(RpcError) -> T {
        // The common scalars in code specialised where the call is written: no metadata
        // look-up and no dynamic cast for them.
        if T.self == String.self, let value = try decodedString() as? T { return value }
        if T.self == Int.self, let value = try decodedInt() as? T { return value }
        if T.self == Double.self, let value = try decodedDouble() as? T { return value }
        if T.self == Bool.self, let value = try decodedBool() as? T { return value }
        return try decodedOther(T.self)
    }

    /// ``decode(_:)`` for every type but the scalars it handles itself.
    @usableFromInline
    func decodedOther<T: Decodable>(_ type: T.Type) throws(RpcError) -> T {
        if let value = try decodedScalar(T.self) {
            return value
        }
        let table = PayloadCodingTable(root: self)
        let json: JSONValue
        do {
            json = try PayloadJSONConversion.json(from: self, table: table)
        } catch {
            throw .invalidResponse("cannot decode \(T.self) at \(error.pathText): \(error.message)")
        }
        do {
            return try PayloadCoding.decoder(with: table).decode(T.self, from: json)
        } catch {
            throw .invalidResponse("cannot decode \(T.self) at \(PayloadCoding.describe(error))")
        }
    }
}

// MARK: - Fast paths

extension RpcPayload {
    /// The payload of a value of a common type, without going through an encoder; `nil`
    /// for other types.
    ///
    /// Each test compares type metadata first, so that unspecialised generic code pays no
    /// dynamic cast for the types it does not match.
    private static func encodedScalar<T>(_ value: T) -> RpcPayload? {
        if T.self == RpcPayload.self { return value as? RpcPayload }
        if T.self == String.self { return (value as? String).map(RpcPayload.string) }
        if T.self == Int.self { return (value as? Int).map { .integer(Int64($0)) } }
        if T.self == Int64.self { return (value as? Int64).map(RpcPayload.integer) }
        if T.self == Double.self { return (value as? Double).map(RpcPayload.double) }
        if T.self == Bool.self { return (value as? Bool).map(RpcPayload.bool) }
        if T.self == RpcStub.self { return (value as? RpcStub).map(RpcPayload.stub) }
        return encodedCompositeScalar(value)
    }

    /// ``encodedScalar(_:)`` for arrays, optionals, streams and Foundation types.
    ///
    /// A function of its own so that the metadata of `[RpcPayload]`, `String?` and the others
    /// is looked up only for values of none of the plain types: the optimiser fetches every
    /// metadata a function compares with as the function starts.
    @inline(never)
    private static func encodedCompositeScalar<T>(_ value: T) -> RpcPayload? {
        if T.self == [RpcPayload].self { return (value as? [RpcPayload]).map(RpcPayload.array) }
        if T.self == String?.self { return optional(value, String.self, RpcPayload.string) }
        if T.self == Int?.self { return optional(value, Int.self) { .integer(Int64($0)) } }
        if T.self == Int64?.self { return optional(value, Int64.self, RpcPayload.integer) }
        if T.self == Double?.self { return optional(value, Double.self, RpcPayload.double) }
        if T.self == Bool?.self { return optional(value, Bool.self, RpcPayload.bool) }
        if T.self == RpcReadableStream.self { return (value as? RpcReadableStream).map(RpcPayload.readable) }
        if T.self == RpcWritableStream.self { return (value as? RpcWritableStream).map(RpcPayload.writable) }
        if T.self == Date.self { return (value as? Date).map { .date($0.timeIntervalSince1970 * 1000) } }
        if T.self == Data.self { return (value as? Data).map { .bytes([UInt8]($0)) } }
        if T.self == URL.self { return (value as? URL).map { .url($0.absoluteString) } }
        return nil
    }

    /// `value` as an optional `Wrapped`, mapped through `transform`, or ``null`` for `nil`.
    private static func optional<T, Wrapped>(
        _ value: T, _ wrapped: Wrapped.Type, _ transform: (Wrapped) -> RpcPayload
    ) -> RpcPayload? {
        guard let optional = value as? Wrapped? else { return nil }
        return optional.map(transform) ?? .null
    }

    /// The value of a common type read directly; `nil` for other types.
    private func decodedScalar<T>(_ type: T.Type) throws(RpcError) -> T? {
        // `String`, `Int`, `Double` and `Bool` never get here: ``decode(_:)`` reads them itself.
        if T.self == RpcPayload.self { return self as? T }
        if T.self == Int64.self { return try decodedInt64() as? T }
        if T.self == RpcStub.self {
            guard case .stub(let stub) = self else { throw mismatch(T.self, expected: "a stub") }
            return stub as? T
        }
        return try decodedCompositeScalar(T.self)
    }

    /// ``decodedScalar(_:)`` for arrays and optionals, in a function of its own for the reason
    /// given at ``encodedCompositeScalar(_:)``.
    @inline(never)
    private func decodedCompositeScalar<T>(_ type: T.Type) throws(RpcError) -> T? {
        if T.self == [RpcPayload].self {
            guard case .array(let elements) = self else { throw mismatch(T.self, expected: "an array") }
            return elements as? T
        }
        if T.self == String?.self { return try (isNullish ? nil : decodedString()) as? T }
        if T.self == Int?.self { return try (isNullish ? nil : decodedInt()) as? T }
        if T.self == Int64?.self { return try (isNullish ? nil : decodedInt64()) as? T }
        if T.self == Double?.self { return try (isNullish ? nil : decodedDouble()) as? T }
        if T.self == Bool?.self { return try (isNullish ? nil : decodedBool()) as? T }
        return nil
    }

    /// A string, bigint or URL as text.
    @usableFromInline
    func decodedString() throws(RpcError) -> String {
        switch self {
        case .string(let text), .bigint(let text), .url(let text): return text
        default: throw mismatch(String.self, expected: "a string")
        }
    }

    /// An integer, a double holding an integer exactly, or a bigint that fits.
    private func decodedInt64() throws(RpcError) -> Int64 {
        let value: Int64? =
            switch self {
            case .integer(let integer): integer
            case .double(let number): Int64(exactly: number)
            case .bigint(let text): Int64(text)
            default: nil
            }
        guard let value else { throw mismatch(Int64.self, expected: "an integer that fits in Int64") }
        return value
    }

    /// ``decodedInt64()`` when it fits in `Int`.
    @usableFromInline
    func decodedInt() throws(RpcError) -> Int {
        guard let value = Int(exactly: try decodedInt64()) else {
            throw mismatch(Int.self, expected: "an integer that fits in Int")
        }
        return value
    }

    /// A number, a valid date's milliseconds, or one of the texts of a non-finite number.
    @usableFromInline
    func decodedDouble() throws(RpcError) -> Double {
        switch self {
        case .integer(let integer): return Double(integer)
        case .double(let number): return number
        case .date(let milliseconds):
            guard let time = CapnWebDate.timeClip(milliseconds) else {
                throw mismatch(Double.self, expected: "a number")
            }
            return time
        case .string("Infinity"): return .infinity
        case .string("-Infinity"): return -.infinity
        case .string("NaN"): return .nan
        default: throw mismatch(Double.self, expected: "a number")
        }
    }

    @usableFromInline
    func decodedBool() throws(RpcError) -> Bool {
        guard case .bool(let flag) = self else { throw mismatch(Bool.self, expected: "a boolean") }
        return flag
    }

    /// The error for a payload that is not what `type` needs.
    private func mismatch<Value>(_ type: Value.Type, expected: String) -> RpcError {
        .invalidResponse("cannot decode \(Value.self) at <root>: expected \(expected) but found \(codingKindName)")
    }

    /// The kind of value, for error messages: `null`, `integer`, `stub`, ...
    var codingKindName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        case .undefined: "undefined"
        case .bigint: "bigint"
        case .date: "date"
        case .bytes: "bytes"
        case .error: "error"
        case .url: "URL"
        case .headers: "headers"
        case .request: "request"
        case .response: "response"
        case .blob: "blob"
        case .stub: "stub"
        case .readable: "readable stream"
        case .writable: "writable stream"
        }
    }
}
