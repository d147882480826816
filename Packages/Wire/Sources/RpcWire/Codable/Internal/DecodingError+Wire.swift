extension DecodingError {
    /// The error for finding `value` where a value of `type` was expected: `valueNotFound`
    /// for `null`, `typeMismatch` for anything else.
    static func mismatch(expecting type: Any.Type, found value: JSONValue, at path: [any CodingKey]) -> DecodingError {
        if case .null = value {
            return .valueNotFound(
                type, Context(codingPath: path, debugDescription: "Expected \(type) value but found null instead."))
        }
        return .typeMismatch(
            type, Context(codingPath: path, debugDescription: "Expected to decode \(type) but found \(value.kindName) instead."))
    }

    /// The error for a number that does not fit the requested type.
    static func numberOutOfRange(_ value: JSONValue, as type: Any.Type, at path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(Context(codingPath: path, debugDescription: "Number \(value) does not fit in \(type)."))
    }
}
