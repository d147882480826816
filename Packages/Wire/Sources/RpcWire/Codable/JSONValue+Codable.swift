extension JSONValue: Codable {
    /// Encodes the value into any encoder.
    ///
    /// ``JSONValueEncoder`` takes the value over as it is. Other encoders receive it through
    /// their containers: scalars as single values, arrays through an unkeyed container and
    /// objects through a keyed container in member order (their key strategies apply to the
    /// member names).
    public func encode(to encoder: any Encoder) throws {
        if let valueEncoder = encoder as? ValueEncoder {
            valueEncoder.node = .value(self)
            return
        }
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .integer(let integer):
            var container = encoder.singleValueContainer()
            try container.encode(integer)
        case .double(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .string(let string):
            var container = encoder.singleValueContainer()
            try container.encode(string)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements {
                try container.encode(element)
            }
        case .object(let object):
            var container = encoder.container(keyedBy: WireCodingKey.self)
            for member in object.members {
                try container.encode(member.value, forKey: WireCodingKey(stringValue: member.key))
            }
        }
    }

    /// Decodes a value from any decoder.
    ///
    /// ``JSONValueDecoder`` hands its value over as it is. With other decoders the kind is
    /// found by trying, in order: `null`, a boolean, an `Int64`, a `Double`, a string, an
    /// array and an object. Such decoders may not tell `1.0` from `1` (it then becomes
    /// ``integer(_:)``) and may not report object members in their written order.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the decoder offers none of these.
    public init(from decoder: any Decoder) throws {
        if let valueDecoder = decoder as? ValueDecoder {
            self = valueDecoder.value
            return
        }
        if let container = try? decoder.singleValueContainer() {
            if container.decodeNil() {
                self = .null
                return
            }
            if let flag = try? container.decode(Bool.self) {
                self = .bool(flag)
                return
            }
            if let integer = try? container.decode(Int64.self) {
                self = .integer(integer)
                return
            }
            if let number = try? container.decode(Double.self) {
                self = .double(number)
                return
            }
            if let string = try? container.decode(String.self) {
                self = .string(string)
                return
            }
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            if let count = container.count {
                elements.reserveCapacity(count)
            }
            while !container.isAtEnd {
                elements.append(try container.decode(JSONValue.self))
            }
            self = .array(elements)
            return
        }
        if let container = try? decoder.container(keyedBy: WireCodingKey.self) {
            var object = JSONObject(minimumCapacity: container.allKeys.count)
            for key in container.allKeys {
                object[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
            }
            self = .object(object)
            return
        }
        throw DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "The decoder holds no JSON value."))
    }
}
