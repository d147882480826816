extension JSONValue {
    /// Parses JSON text.
    ///
    /// ```swift
    /// let value = try JSONValue(parsing: #"{"id": 12345, "tags": ["x"]}"#)
    /// ```
    ///
    /// - Parameters:
    ///   - text: The JSON text.
    ///   - configuration: The limits and policies to apply.
    /// - Throws: ``WireError`` with a location when the text is not valid JSON or exceeds a
    ///   limit of `configuration`.
    public init(parsing text: String, configuration: JSONParser.Configuration = .default) throws(WireError) {
        self = try JSONParser(configuration: configuration).parse(text)
    }

    /// Parses JSON text given as UTF-8 bytes.
    ///
    /// - Parameters:
    ///   - bytes: The UTF-8 encoded JSON text.
    ///   - configuration: The limits and policies to apply.
    /// - Throws: ``WireError`` with a location when the text is not valid JSON or exceeds a
    ///   limit of `configuration`.
    public init(parsing bytes: [UInt8], configuration: JSONParser.Configuration = .default) throws(WireError) {
        self = try JSONParser(configuration: configuration).parse(bytes)
    }
}
