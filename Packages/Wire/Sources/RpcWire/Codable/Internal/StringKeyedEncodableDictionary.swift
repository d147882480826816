/// A `[String: Value]` dictionary, whose keys the encoder writes as they are whatever the key
/// strategy, since they are data rather than property names.
protocol StringKeyedEncodableDictionary {
    /// The dictionary as an object, with each value encoded by `encoder` under `path`.
    func encodeMembers(with encoder: ValueEncoder, at path: CodingPath) throws -> EncodedNode
}

extension Dictionary: StringKeyedEncodableDictionary where Key == String, Value: Encodable {
    func encodeMembers(with encoder: ValueEncoder, at path: CodingPath) throws -> EncodedNode {
        let box = EncodedNode.ObjectBox()
        for (key, value) in self {
            let node = try encoder.encodeNested(value, at: path.appending(key: WireCodingKey(stringValue: key)))
            box.set(node, for: key)
        }
        return .object(box)
    }
}
