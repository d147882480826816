/// A `[String: Value]` dictionary, whose keys the decoder reads as they are whatever the key
/// strategy, since they are data rather than property names.
protocol StringKeyedDecodableDictionary {
    /// Decodes the dictionary from the object `value`, each member with `decoder`.
    static func decodeMembers(from value: JSONValue, with decoder: ValueDecoder, at path: CodingPath) throws -> Self
}

extension Dictionary: StringKeyedDecodableDictionary where Key == String, Value: Decodable {
    static func decodeMembers(from value: JSONValue, with decoder: ValueDecoder, at path: CodingPath) throws -> Self {
        guard case .object(let object) = value else {
            throw DecodingError.mismatch(expecting: [String: Any].self, found: value, at: path.keys)
        }
        var result = [String: Value](minimumCapacity: object.count)
        for member in object.members {
            let memberPath = path.appending(key: WireCodingKey(stringValue: member.key))
            result[member.key] = try decoder.decodeNested(Value.self, from: member.value, at: memberPath)
        }
        return result
    }
}
