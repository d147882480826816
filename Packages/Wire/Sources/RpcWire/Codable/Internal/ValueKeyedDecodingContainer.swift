/// The keyed container of ``ValueDecoder``: reads the members of one object.
///
/// A look-up first tries the member after the previous hit (see ``ValueDecoder/keyHint``),
/// then searches the object. Coding paths are only turned into arrays for errors and for
/// ``codingPath``.
struct ValueKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ValueDecoder
    let object: JSONObject
    let path: CodingPath
    /// The object's keys after the key strategy, by position; `nil` with default keys.
    private let convertedKeys: [String]?

    init(decoder: ValueDecoder, object: JSONObject, path: CodingPath) {
        self.decoder = decoder
        self.object = object
        self.path = path
        if decoder.options.usesDefaultKeys {
            convertedKeys = nil
        } else {
            convertedKeys = Self.convertKeys(of: object, strategy: decoder.options.keyStrategy, at: path)
        }
    }

    private static func convertKeys(
        of object: JSONObject, strategy: JSONValueDecoder.KeyDecodingStrategy, at path: CodingPath
    ) -> [String] {
        switch strategy {
        case .useDefaultKeys:
            return object.keys
        case .convertFromSnakeCase:
            return object.members.map { KeyCaseConversion.camelCase($0.key) }
        case .custom(let convert):
            let base = path.keys
            return object.members.map { member in
                convert(base + [WireCodingKey(stringValue: member.key)]).stringValue
            }
        }
    }

    var codingPath: [any CodingKey] { path.keys }

    var allKeys: [Key] {
        (convertedKeys ?? object.keys).compactMap { Key(stringValue: $0) }
    }

    // MARK: Look-up

    /// The position of the member named `name` (after key conversion), or `nil`.
    @inline(__always)
    private func position(ofName name: String) -> Int? {
        let hint = decoder.keyHint
        if let convertedKeys {
            if hint < convertedKeys.count, JSONKey.equal(convertedKeys[hint], name) {
                decoder.keyHint = hint + 1
                return hint
            }
            guard let found = convertedKeys.firstIndex(where: { JSONKey.equal($0, name) }) else { return nil }
            decoder.keyHint = found + 1
            return found
        }
        let members = object.members
        if hint < members.count, JSONKey.equal(members[hint].key, name) {
            decoder.keyHint = hint + 1
            return hint
        }
        guard let found = object.position(ofKey: name) else { return nil }
        decoder.keyHint = found + 1
        return found
    }

    /// The value for `key`, or `nil` when the object has no such member.
    @inline(__always)
    private func valueIfPresent(for key: Key) -> JSONValue? {
        guard let position = position(ofName: key.stringValue) else { return nil }
        return object.members[position].value
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
        position(ofName: key.stringValue) != nil
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
        if let scalar = try decoder.decodeScalar(T.self, from: value, at: path.keys(appending: key)) {
            return scalar
        }
        return try decoder.decodeNonScalar(T.self, from: value, at: path.appending(key: key))
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
        if let scalar = try decoder.decodeScalar(T.self, from: value, at: path.keys(appending: key)) {
            return scalar
        }
        return try decoder.decodeNonScalar(T.self, from: value, at: path.appending(key: key))
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
        let value = position(ofName: superKey.stringValue).map { object.members[$0].value } ?? .null
        return ValueDecoder(value: value, path: path.appending(key: superKey), options: decoder.options)
    }

    /// A decoder for the member `key`; a missing member reads as `null`.
    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: valueIfPresent(for: key) ?? .null, path: path.appending(key: key), options: decoder.options)
    }
}
