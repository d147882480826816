extension CapnWebCodec {
    /// Decodes one message from its UTF-8 JSON text.
    ///
    /// - Parameter bytes: The text of one message (one WebSocket frame, one batch line).
    /// - Returns: The message.
    /// - Throws: ``WireError``: ``WireError/Code/inputTooLarge`` past
    ///   ``Configuration/maxMessageSize``, a parse error with a location when the text is not
    ///   JSON (or nests past ``Configuration/maxDepth``), or a decoding error with a path.
    public func decode(_ bytes: [UInt8]) throws(WireError) -> CapnWebMessage {
        guard bytes.count <= configuration.maxMessageSize else { throw tooLarge(bytes.count) }
        if let message = bytes.withUnsafeBytes({ readDirectly($0) }) { return message }
        return try decode(parser.parse(bytes))
    }

    /// Decodes one message from UTF-8 JSON text in raw memory; see ``decode(_:)-([UInt8])``.
    ///
    /// The memory is only read during the call.
    public func decode(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> CapnWebMessage {
        guard bytes.count <= configuration.maxMessageSize else { throw tooLarge(bytes.count) }
        if let message = readDirectly(bytes) { return message }
        return try decode(parser.parse(bytes))
    }

    /// Decodes one message from its JSON text; see ``decode(_:)-([UInt8])``.
    public func decode(_ text: String) throws(WireError) -> CapnWebMessage {
        let count = text.utf8.count
        guard count <= configuration.maxMessageSize else { throw tooLarge(count) }
        var text = text
        if let message = text.withUTF8({ readDirectly(UnsafeRawBufferPointer($0)) }) { return message }
        return try decode(parser.parse(text))
    }

    /// The message in `bytes` when the direct reader knows all of its forms (see
    /// ``CapnWebFastReader``), without building the JSON tree; `nil` sends the bytes through
    /// the tree, which decodes every form and reports every error.
    @inline(__always)
    private func readDirectly(_ bytes: UnsafeRawBufferPointer) -> CapnWebMessage? {
        CapnWebFastReader.message(in: bytes, maxDepth: configuration.maxDepth)
    }

    /// Decodes one message from a parsed JSON value.
    ///
    /// - Parameter value: The message as JSON: an array whose first element is a string tag.
    /// - Returns: The message.
    /// - Throws: ``WireError`` whose path is a JSON Pointer into `value`:
    ///   ``WireError/Code/invalidMessage`` when `value` is not a non-empty array with a string
    ///   tag or an ID is not an integer, ``WireError/Code/unknownTag``,
    ///   ``WireError/Code/wrongArity``, or any expression error.
    public func decode(_ value: JSONValue) throws(WireError) -> CapnWebMessage {
        // Most messages are fine: decode without keeping the error path, and only when that
        // fails decode again keeping it, for the error's pointer.
        var fast = CapnWebDecoder(configuration: configuration, tracksPath: false)
        if let message = try? fast.message(value) { return message }
        var decoder = CapnWebDecoder(configuration: configuration)
        return try decoder.message(value)
    }

    /// Decodes one expression from a parsed JSON value.
    ///
    /// - Parameter value: The expression as JSON.
    /// - Returns: The expression.
    /// - Throws: ``WireError`` whose path is a JSON Pointer into `value`.
    public func decodeExpression(_ value: JSONValue) throws(WireError) -> CapnWebExpression {
        var fast = CapnWebDecoder(configuration: configuration, tracksPath: false)
        if let expression = try? fast.expression(value) { return expression }
        var decoder = CapnWebDecoder(configuration: configuration)
        return try decoder.expression(value)
    }
}
