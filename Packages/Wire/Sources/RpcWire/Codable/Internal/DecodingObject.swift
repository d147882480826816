/// The state of a keyed decoding container: the object being read, its coding path, and
/// where the next look-up should start.
///
/// Fields are usually decoded in the order they were written, so a look-up first tries the
/// member after the previous hit and only then searches the whole object.
final class DecodingObject {
    let decoder: ValueDecoder
    let object: JSONObject
    let path: CodingPath
    /// The object's keys after the key strategy, by position; `nil` with default keys.
    private let convertedKeys: [String]?
    /// The position after the member found last.
    private var hint = 0

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

    /// The keys to match coding keys against, after the key strategy.
    var keys: [String] {
        convertedKeys ?? object.keys
    }

    /// The position of the member named `name` (after key conversion), or `nil`.
    @inline(__always)
    func position(ofName name: String) -> Int? {
        let start = hint
        if let convertedKeys {
            if start < convertedKeys.count, KeyComparison.equal(convertedKeys[start], name) {
                hint = start + 1
                return start
            }
            guard let found = convertedKeys.firstIndex(where: { KeyComparison.equal($0, name) }) else { return nil }
            hint = found + 1
            return found
        }
        let found: Int
        if start < object.members.count, KeyComparison.equal(object.members[start].key, name) {
            found = start
        } else if let position = object.position(ofKey: name) {
            found = position
        } else {
            return nil
        }
        hint = found + 1
        return found
    }

    /// The value of the member named `name`, or `nil`.
    @inline(__always)
    func value(named name: String) -> JSONValue? {
        guard let position = position(ofName: name) else { return nil }
        return object.members[position].value
    }
}
