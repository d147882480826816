public import RpcWire

/// RivetKit's JSON compat encoding: how values JSON cannot carry travel in JSON frames, as
/// two-element arrays tagged with a `$` name.
///
/// Reading turns `["$BigInt","n"]` into an integer (a string when it does not fit in `Int64`),
/// `["$Undefined",0]` into `null`, `["$Uint8Array","b64"]` and `["$ArrayBuffer","b64"]` into
/// their base64 text (what `Data` decodes from), `["$Set",[...]]` into an array, and removes the
/// extra `$` of an escaped user array (`["$$x", y]` is the user's `["$x", y]`). An unknown tag
/// is an error, as it is for RivetKit's own client. Writing escapes user arrays of that shape.
public enum RivetJSONCompat {
    /// `value` as it travels: user arrays that look like a tagged pair get another `$`.
    public static func encode(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements):
            let encoded = elements.map(encode)
            if encoded.count == 2, case .string(let tag) = encoded[0], tag.hasPrefix("$") {
                return .array([.string("$" + tag), encoded[1]])
            }
            return .array(encoded)
        case .object(let object):
            return .object(JSONObject(object.map { ($0.key, encode($0.value)) }))
        default:
            return value
        }
    }

    /// Whether ``encode(_:)`` would change `value`: whether it holds an array of two elements
    /// whose first is a string starting with `$`.
    public static func needsEncoding(_ value: JSONValue) -> Bool {
        switch value {
        case .array(let elements):
            if elements.count == 2, case .string(let tag) = elements[0], tag.hasPrefix("$") { return true }
            return elements.contains(where: needsEncoding)
        case .object(let object):
            return object.contains { needsEncoding($0.value) }
        default:
            return false
        }
    }

    /// The value `wire` carries, with the compat forms read as described above.
    ///
    /// - Throws: ``ActorError`` `message.malformed` for an unknown tag or a tagged pair whose
    ///   payload has the wrong type.
    public static func decode(_ wire: JSONValue) throws(ActorError) -> JSONValue {
        // Most values hold no tagged pair and travel as they are.
        guard needsEncoding(wire) else { return wire }
        switch wire {
        case .array(let elements):
            if elements.count == 2, case .string(let tag) = elements[0], tag.hasPrefix("$") {
                return try decodeTagged(tag, elements[1])
            }
            var decoded: [JSONValue] = []
            decoded.reserveCapacity(elements.count)
            for element in elements {
                decoded.append(try decode(element))
            }
            return .array(decoded)
        case .object(let object):
            var decoded = JSONObject(minimumCapacity: object.count)
            for (key, value) in object {
                _ = decoded.updateValue(try decode(value), forKey: key)
            }
            return .object(decoded)
        default:
            return wire
        }
    }

    /// `["$BigInt","n"]`, the form RivetKit's client insists on for message ids.
    public static func bigInt(_ value: UInt64) -> JSONValue {
        .array([.string("$BigInt"), .string(String(value))])
    }

    /// The unsigned 64-bit integer in `["$BigInt","n"]` or a plain non-negative JSON integer.
    ///
    /// - Throws: ``ActorError`` `message.malformed` for anything else.
    public static func unsigned(_ value: JSONValue) throws(ActorError) -> UInt64 {
        switch value {
        case .integer(let number) where number >= 0:
            return UInt64(number)
        case .array(let pair) where pair.count == 2 && pair[0] == .string("$BigInt"):
            if case .string(let digits) = pair[1], let number = UInt64(digits) {
                return number
            }
        default:
            break
        }
        throw .malformed("expected an unsigned 64-bit id, got \(value)")
    }

    private static func decodeTagged(_ tag: String, _ payload: JSONValue) throws(ActorError) -> JSONValue {
        switch tag {
        case "$BigInt":
            guard case .string(let digits) = payload, !digits.isEmpty else {
                throw .malformed("$BigInt carries a decimal string")
            }
            return Int64(digits).map(JSONValue.integer) ?? .string(digits)
        case "$Undefined":
            return .null
        case "$Uint8Array", "$ArrayBuffer":
            guard case .string = payload else { throw .malformed("\(tag) carries base64 text") }
            return payload
        case "$Set":
            guard case .array = payload else { throw .malformed("$Set carries an array") }
            return try decode(payload)
        default:
            if tag.hasPrefix("$$") {
                return .array([.string(String(tag.dropFirst())), try decode(payload)])
            }
            throw .malformed("unknown JSON compat tag \(tag)")
        }
    }
}
