/// The keyed container of ``ValueEncoder``: writes members into an object box.
struct ValueKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoder
    let object: EncodedNode.ObjectBox

    var codingPath: [any CodingKey] { encoder.path.keys }

    private func name(for key: Key) -> String {
        if encoder.options.usesDefaultKeys {
            return key.stringValue
        }
        return encoder.name(for: key, in: encoder.path)
    }

    private func set(_ value: JSONValue, for key: Key) {
        object.set(.value(value), for: name(for: key))
    }

    mutating func encodeNil(forKey key: Key) throws { set(.null, for: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), for: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), for: key) }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        set(try encoder.box(value, at: encoder.path.keys(appending: key)), for: key)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        set(try encoder.box(value, at: encoder.path.keys(appending: key)), for: key)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws { set(.integer(Int64(value)), for: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.integer(Int64(value)), for: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.integer(Int64(value)), for: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.integer(Int64(value)), for: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.integer(value), for: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.integer(Int64(value)), for: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.integer(Int64(value)), for: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.integer(Int64(value)), for: key) }

    mutating func encode(_ value: Int128, forKey key: Key) throws {
        set(try encoder.box(value, at: encoder.path.keys(appending: key)), for: key)
    }

    mutating func encode(_ value: UInt, forKey key: Key) throws {
        set(try encoder.box(value, at: encoder.path.keys(appending: key)), for: key)
    }

    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        set(try encoder.box(value, at: encoder.path.keys(appending: key)), for: key)
    }

    mutating func encode(_ value: UInt128, forKey key: Key) throws {
        set(try encoder.box(value, at: encoder.path.keys(appending: key)), for: key)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let node = try encoder.encodeNested(value, at: encoder.path.appending(key: key))
        object.set(node, for: name(for: key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = ValueEncoder(options: encoder.options, path: encoder.path.appending(key: key))
        let box = nested.objectBox()
        object.set(.object(box), for: name(for: key))
        return KeyedEncodingContainer(ValueKeyedEncodingContainer<NestedKey>(encoder: nested, object: box))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ValueEncoder(options: encoder.options, path: encoder.path.appending(key: key))
        let box = nested.arrayBox()
        object.set(.array(box), for: name(for: key))
        return ValueUnkeyedEncodingContainer(encoder: nested, array: box)
    }

    mutating func superEncoder() -> any Encoder {
        let superEncoder = ValueEncoder(
            options: encoder.options, path: encoder.path.appending(key: WireCodingKey.superKey))
        object.set(.deferred(superEncoder), for: WireCodingKey.superKey.stringValue)
        return superEncoder
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let superEncoder = ValueEncoder(options: encoder.options, path: encoder.path.appending(key: key))
        object.set(.deferred(superEncoder), for: name(for: key))
        return superEncoder
    }
}
