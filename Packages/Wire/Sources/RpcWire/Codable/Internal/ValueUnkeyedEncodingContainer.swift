/// The unkeyed container of ``ValueEncoder``: appends elements to an array box.
struct ValueUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: ValueEncoder
    let array: EncodedNode.ArrayBox

    init(encoder: ValueEncoder, array: EncodedNode.ArrayBox) {
        self.encoder = encoder
        self.array = array
    }

    var codingPath: [any CodingKey] { encoder.path.keys }

    var count: Int { array.nodes.count }

    /// The path of the element about to be appended.
    private func nextPath() -> CodingPath {
        encoder.path.appending(.index(array.nodes.count))
    }

    private func append(_ value: JSONValue) {
        array.nodes.append(.value(value))
    }

    mutating func encodeNil() throws { append(.null) }
    mutating func encode(_ value: Bool) throws { append(.bool(value)) }
    mutating func encode(_ value: String) throws { append(.string(value)) }

    mutating func encode(_ value: Double) throws {
        append(try encoder.box(value, at: encoder.path.keys(appendingIndex: count)))
    }

    mutating func encode(_ value: Float) throws {
        append(try encoder.box(value, at: encoder.path.keys(appendingIndex: count)))
    }

    mutating func encode(_ value: Int) throws { append(.integer(Int64(value))) }
    mutating func encode(_ value: Int8) throws { append(.integer(Int64(value))) }
    mutating func encode(_ value: Int16) throws { append(.integer(Int64(value))) }
    mutating func encode(_ value: Int32) throws { append(.integer(Int64(value))) }
    mutating func encode(_ value: Int64) throws { append(.integer(value)) }
    mutating func encode(_ value: UInt8) throws { append(.integer(Int64(value))) }
    mutating func encode(_ value: UInt16) throws { append(.integer(Int64(value))) }
    mutating func encode(_ value: UInt32) throws { append(.integer(Int64(value))) }

    mutating func encode(_ value: Int128) throws {
        append(try encoder.box(value, at: encoder.path.keys(appendingIndex: count)))
    }

    mutating func encode(_ value: UInt) throws {
        append(try encoder.box(value, at: encoder.path.keys(appendingIndex: count)))
    }

    mutating func encode(_ value: UInt64) throws {
        append(try encoder.box(value, at: encoder.path.keys(appendingIndex: count)))
    }

    mutating func encode(_ value: UInt128) throws {
        append(try encoder.box(value, at: encoder.path.keys(appendingIndex: count)))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let node = try encoder.encodeNested(value, at: nextPath())
        array.nodes.append(node)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = ValueEncoder(options: encoder.options, path: nextPath())
        let box = nested.objectBox()
        array.nodes.append(.object(box))
        return KeyedEncodingContainer(ValueKeyedEncodingContainer<NestedKey>(encoder: nested, object: box))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ValueEncoder(options: encoder.options, path: nextPath())
        let box = nested.arrayBox()
        array.nodes.append(.array(box))
        return ValueUnkeyedEncodingContainer(encoder: nested, array: box)
    }

    mutating func superEncoder() -> any Encoder {
        let superEncoder = ValueEncoder(options: encoder.options, path: nextPath())
        array.nodes.append(.deferred(superEncoder))
        return superEncoder
    }
}
