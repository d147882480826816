/// The keyed container of ``ValueDecoder``: reads the members of one object.
///
/// Its state lives in one ``DecodingObject`` reference, so the copies the standard library
/// makes of a container cost one reference count. Coding paths are only turned into arrays
/// for errors and for ``codingPath``.
struct ValueKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let storage: DecodingObject

    init(decoder: ValueDecoder, object: JSONObject, path: CodingPath) {
        storage = DecodingObject(decoder: decoder, object: object, path: path)
    }

    private var decoder: ValueDecoder { storage.decoder }

    private var path: CodingPath { storage.path }

    var codingPath: [any CodingKey] { path.keys }

    var allKeys: [Key] {
        storage.keys.compactMap { Key(stringValue: $0) }
    }

    // MARK: Look-up

    /// The value for `key`, or `nil` when the object has no such member.
    @inline(__always)
    private func valueIfPresent(for key: Key) -> JSONValue? {
        storage.value(named: key.stringValue)
    }

    /// The value for `key`.
    @inline(__always)
    private func value(for key: Key) throws -> JSONValue {
        guard let value = valueIfPresent(for: key) else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: path.keys, debugDescription: "No value for key \"\(key.stringValue)\"."))
        }
        return value
    }

    func contains(_ key: Key) -> Bool {
        storage.position(ofName: key.stringValue) != nil
    }

    // MARK: Required values

    func decodeNil(forKey key: Key) throws -> Bool {
        try value(for: key).isNull
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try decoder.unboxBool(try value(for: key), at: path.keys(appending: key))
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try decoder.unboxString(try value(for: key), at: path.keys(appending: key))
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try decoder.unboxDouble(try value(for: key), at: path.keys(appending: key))
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try decoder.unboxFloat(try value(for: key), at: path.keys(appending: key))
    }

    @inline(__always)
    private func decodeInteger<Integer: FixedWidthInteger>(_ type: Integer.Type, forKey key: Key) throws -> Integer {
        try decoder.unboxInteger(try value(for: key), as: type, at: path.keys(appending: key))
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeInteger(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeInteger(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeInteger(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeInteger(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeInteger(type, forKey: key) }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try decodeInteger(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeInteger(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeInteger(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeInteger(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeInteger(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeInteger(type, forKey: key) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try decodeInteger(type, forKey: key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let value = try value(for: key)
        return try decoder.decodeValue(
            T.self, from: value, errorPath: path.keys(appending: key), nestedPath: path.appending(key: key))
    }

    // MARK: Optional values (one look-up each)

    /// The value for `key` unless it is missing or `null`.
    @inline(__always)
    private func presentValue(for key: Key) -> JSONValue? {
        guard let value = valueIfPresent(for: key), !value.isNull else { return nil }
        return value
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let value = presentValue(for: key) else { return nil }
        return try decoder.unboxBool(value, at: path.keys(appending: key))
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let value = presentValue(for: key) else { return nil }
        return try decoder.unboxString(value, at: path.keys(appending: key))
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let value = presentValue(for: key) else { return nil }
        return try decoder.unboxDouble(value, at: path.keys(appending: key))
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        guard let value = presentValue(for: key) else { return nil }
        return try decoder.unboxFloat(value, at: path.keys(appending: key))
    }

    @inline(__always)
    private func decodeIntegerIfPresent<Integer: FixedWidthInteger>(
        _ type: Integer.Type, forKey key: Key
    ) throws -> Integer? {
        guard let value = presentValue(for: key) else { return nil }
        return try decoder.unboxInteger(value, as: type, at: path.keys(appending: key))
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try decodeIntegerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try decodeIntegerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try decodeIntegerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try decodeIntegerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try decodeIntegerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? {
        try decodeIntegerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try decodeIntegerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try decodeIntegerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try decodeIntegerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try decodeIntegerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try decodeIntegerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? {
        try decodeIntegerIfPresent(type, forKey: key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = presentValue(for: key) else { return nil }
        return try decoder.decodeValue(
            T.self, from: value, errorPath: path.keys(appending: key), nestedPath: path.appending(key: key))
    }

    // MARK: Nested containers and super decoders

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try value(for: key)
        let nestedPath = path.appending(key: key)
        guard case .object(let nested) = value else {
            throw DecodingError.mismatch(expecting: [String: Any].self, found: value, at: nestedPath.keys)
        }
        return KeyedDecodingContainer(ValueKeyedDecodingContainer<NestedKey>(decoder: decoder, object: nested, path: nestedPath))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let value = try value(for: key)
        let nestedPath = path.appending(key: key)
        guard case .array(let elements) = value else {
            throw DecodingError.mismatch(expecting: [Any].self, found: value, at: nestedPath.keys)
        }
        return ValueUnkeyedDecodingContainer(decoder: decoder, elements: elements, path: nestedPath)
    }

    /// A decoder for the member `super`; a missing member reads as `null`.
    func superDecoder() throws -> any Decoder {
        let superKey = WireCodingKey.superKey
        let value = storage.value(named: superKey.stringValue) ?? .null
        return ValueDecoder(value: value, path: path.appending(key: superKey), options: decoder.options)
    }

    /// A decoder for the member `key`; a missing member reads as `null`.
    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: valueIfPresent(for: key) ?? .null, path: path.appending(key: key), options: decoder.options)
    }
}
