import RivetKit

/// Encoding Swift values to the JSON an action or event carries and back, with the errors a
/// client sees.
enum ActorValueCoding {
    static func encode<T: Encodable>(_ value: T) throws(ActorError) -> JSONValue {
        // The outputs actions return most, made as the encoder makes them, without one.
        if T.self == Int.self, let integer = value as? Int {
            return .integer(Int64(integer))
        }
        if T.self == String.self, let string = value as? String {
            return .string(string)
        }
        if T.self == Bool.self, let bool = value as? Bool {
            return .bool(bool)
        }
        if T.self == JSONValue.self, let json = value as? JSONValue {
            return json
        }
        do {
            return try JSONValueEncoder().encode(value)
        } catch {
            throw ActorError(.rivetkitInternalError, "a value could not be encoded: \(error)")
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, _ value: JSONValue, argument: Int) throws(ActorError) -> T {
        do {
            return try JSONValueDecoder().decode(T.self, from: value)
        } catch {
            throw ActorError(
                .requestInvalid, "argument \(argument) is not a \(T.self): \(error)")
        }
    }

    /// The arguments, checked against the count an action takes: missing ones are `null`
    /// (for optional parameters), extra ones an error.
    static func arguments(_ args: [JSONValue], count: Int, action: String) throws(ActorError) -> [JSONValue] {
        guard args.count <= count else {
            throw ActorError(
                .requestInvalid,
                "the action \(action) takes \(count) arguments, \(args.count) were given")
        }
        return args + Array(repeating: .null, count: count - args.count)
    }
}
