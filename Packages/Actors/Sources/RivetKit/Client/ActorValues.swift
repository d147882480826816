/// Swift values to the JSON of action arguments and back, with the client's errors.
enum ActorValues {
    /// Encodes arguments; a value that cannot be encoded is `client.encode_error`.
    static func encode(_ values: [any Encodable]) throws(ActorError) -> [JSONValue] {
        var encoded: [JSONValue] = []
        for value in values {
            do {
                encoded.append(try JSONValueEncoder().encode(value))
            } catch {
                throw ActorError(.clientEncodeError, "an argument cannot be encoded: \(error)")
            }
        }
        return encoded
    }

    /// Decodes a value; failure is `client.decode_error`.
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(ActorError) -> T {
        do {
            return try JSONValueDecoder().decode(T.self, from: value)
        } catch {
            throw ActorError(.clientDecodeError, "\(value) is not a \(T.self): \(error)")
        }
    }

    /// Decodes a value of the type the caller expects; failure is `client.decode_error`. Takes
    /// no metatype, so that what it returns is the caller's alone even when `T` is not
    /// `Sendable`.
    static func decode<T: Decodable>(from value: JSONValue) throws(ActorError) -> T {
        try decode(T.self, from: value)
    }
}
