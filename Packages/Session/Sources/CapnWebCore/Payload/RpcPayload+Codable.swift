internal import RpcWire

extension RpcPayload: Codable {
    /// Encodes the payload as a member of an `Encodable` value.
    ///
    /// Inside ``init(encoding:)`` the payload is kept exactly as it is, references included.
    /// Other encoders (`JSONEncoder`, ...) receive its plain JSON form: `undefined` as `null`,
    /// a date as its milliseconds, a bigint as a number or its text, a URL as its text, an
    /// error as `{name, message, ...}`.
    ///
    /// - Throws: `EncodingError.invalidValue` when another encoder is given a payload holding
    ///   references, streams, bytes, requests, responses or blobs.
    public func encode(to encoder: any Encoder) throws {
        if let table = PayloadCodingTable.current(in: encoder.userInfo) {
            try table.encodeMarker(for: self, to: encoder)
            return
        }
        let table = PayloadCodingTable()
        let json: JSONValue
        do {
            json = try PayloadJSONConversion.json(from: self, table: table)
        } catch {
            throw EncodingError.invalidValue(
                self,
                EncodingError.Context(codingPath: encoder.codingPath, debugDescription: PayloadCoding.describe(error)))
        }
        guard table.snapshot().isEmpty else {
            throw EncodingError.invalidValue(
                self,
                EncodingError.Context(
                    codingPath: encoder.codingPath,
                    debugDescription: "The payload holds values with no JSON form (references, streams or bytes); encode it with RpcPayload(encoding:)."))
        }
        try json.encode(to: encoder)
    }

    /// Decodes a payload member of a `Decodable` value.
    ///
    /// Inside ``decode(_:)`` the member is the very payload received, references, dates,
    /// bytes and `undefined` included. Other decoders (`JSONDecoder`, ...) give its JSON form.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when an object has the reserved member name
    ///   `"\u{0}capnweb"`.
    public init(from decoder: any Decoder) throws {
        let table = PayloadCodingTable.current(in: decoder.userInfo)
        if let root = table?.root, let payload = root.descendant(at: decoder.codingPath) {
            self = payload
            return
        }
        let json = try decoder.singleValueContainer().decode(JSONValue.self)
        do {
            self = try PayloadJSONConversion.payload(from: json, entries: table?.snapshot() ?? [])
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: PayloadCoding.describe(error)))
        }
    }

    /// The value at `path` below this one, following the JSON form that ``decode(_:)``
    /// hands to the decoder (errors as objects, headers as arrays of pairs).
    private func descendant(at path: [any CodingKey]) -> RpcPayload? {
        var current = self
        for key in path {
            switch current {
            case .object(let members):
                guard let member = members.last(where: { $0.key == key.stringValue }) else { return nil }
                current = member.value
            case .array(let elements):
                guard let index = key.intValue, elements.indices.contains(index) else { return nil }
                current = elements[index]
            case .error(let value):
                switch key.stringValue {
                case "name": current = .string(value.name)
                case "message": current = .string(value.message)
                case "stack":
                    guard let stack = value.stack else { return nil }
                    current = .string(stack)
                default:
                    guard let property = value.property(key.stringValue) else { return nil }
                    current = property
                }
            case .headers(let headers):
                guard let index = key.intValue, headers.indices.contains(index) else { return nil }
                current = .array([.string(headers[index].name), .string(headers[index].value)])
            default:
                return nil
            }
        }
        return current
    }
}
