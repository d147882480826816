/// The unkeyed container of ``ValueDecoder``: reads the elements of one array in order.
///
/// An element is consumed only when it decodes successfully, so a failed decode can be
/// retried as another type.
struct ValueUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: ValueDecoder
    let elements: [JSONValue]
    let path: CodingPath
    private(set) var currentIndex = 0

    init(decoder: ValueDecoder, elements: [JSONValue], path: CodingPath) {
        self.decoder = decoder
        self.elements = elements
        self.path = path
    }

    var codingPath: [any CodingKey] { path.keys }

    var count: Int? { elements.count }

    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The path of the current element.
    private func elementPath() -> CodingPath {
        path.appending(.index(currentIndex))
    }

    /// The current element, which must exist.
    @inline(__always)
    private func current(_ type: Any.Type) throws -> JSONValue {
        guard currentIndex < elements.count else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: path.keys(appendingIndex: currentIndex), debugDescription: "Unkeyed container is at end."))
        }
        return elements[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard try current(Any?.self).isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let result = try decoder.unboxBool(try current(type), at: path.keys(appendingIndex: currentIndex))
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: String.Type) throws -> String {
        let result = try decoder.unboxString(try current(type), at: path.keys(appendingIndex: currentIndex))
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        let result = try decoder.unboxDouble(try current(type), at: path.keys(appendingIndex: currentIndex))
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        let result = try decoder.unboxFloat(try current(type), at: path.keys(appendingIndex: currentIndex))
        currentIndex += 1
        return result
    }

    @inline(__always)
    private mutating func decodeInteger<Integer: FixedWidthInteger>(_ type: Integer.Type) throws -> Integer {
        let result = try decoder.unboxInteger(try current(type), as: type, at: path.keys(appendingIndex: currentIndex))
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: Int.Type) throws -> Int { try decodeInteger(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeInteger(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeInteger(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeInteger(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeInteger(type) }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try decodeInteger(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeInteger(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeInteger(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeInteger(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeInteger(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeInteger(type) }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try decodeInteger(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try current(type)
        let result = try decoder.decodeValue(
            T.self, from: value, errorPath: path.keys(appendingIndex: currentIndex), nestedPath: elementPath())
        currentIndex += 1
        return result
    }

    /// `nil` at the end or for `null` (consuming it); otherwise the decoded element.
    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        guard currentIndex < elements.count else { return nil }
        if elements[currentIndex].isNull {
            currentIndex += 1
            return nil
        }
        return try decode(T.self)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try current(KeyedDecodingContainer<NestedKey>.self)
        let nestedPath = elementPath()
        guard case .object(let object) = value else {
            throw DecodingError.mismatch(expecting: [String: Any].self, found: value, at: nestedPath.keys)
        }
        currentIndex += 1
        return KeyedDecodingContainer(ValueKeyedDecodingContainer<NestedKey>(decoder: decoder, object: object, path: nestedPath))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let value = try current((any UnkeyedDecodingContainer).self)
        let nestedPath = elementPath()
        guard case .array(let nested) = value else {
            throw DecodingError.mismatch(expecting: [Any].self, found: value, at: nestedPath.keys)
        }
        currentIndex += 1
        return ValueUnkeyedDecodingContainer(decoder: decoder, elements: nested, path: nestedPath)
    }

    mutating func superDecoder() throws -> any Decoder {
        let value = try current((any Decoder).self)
        let superDecoder = ValueDecoder(value: value, path: elementPath(), options: decoder.options)
        currentIndex += 1
        return superDecoder
    }
}
