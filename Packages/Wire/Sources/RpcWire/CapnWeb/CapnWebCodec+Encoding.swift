extension CapnWebCodec {
    /// Encodes one message as compact UTF-8 JSON text, written straight to bytes.
    ///
    /// Non-finite doubles are written as `["inf"]`, `["-inf"]` and `["nan"]`; bytes as unpadded
    /// base64; integral dates without a fraction.
    ///
    /// - Parameter message: The message.
    /// - Returns: The text of the message, without a trailing newline.
    /// - Throws: ``WireError`` when the message holds something a receiver with this
    ///   configuration would refuse: nesting past ``Configuration/maxDepth``
    ///   (``WireError/Code/depthLimitExceeded``), malformed or too long bigint text
    ///   (``WireError/Code/invalidBigInt``), typed-array bytes of a misaligned length
    ///   (``WireError/Code/misalignedBytes``), or a request or response INIT with repeated
    ///   keys or a plain field named `body` (``WireError/Code/invalidExpression``).
    public func encode(_ message: CapnWebMessage) throws(WireError) -> [UInt8] {
        // Room for a typical call or answer (a few hundred bytes) at once: growing from less
        // costs a reallocation or two per message.
        var encoder = CapnWebEncoder(
            output: CapnWebTextOutput(writer: JSONWriter(reservingCapacity: 256)),
            configuration: configuration)
        try encoder.message(message)
        return encoder.output.writer.bytes
    }

    /// Appends the text of one message to `bytes`, for example to join a batch body; see
    /// ``encode(_:)``. On failure `bytes` is left as it was.
    public func encode(_ message: CapnWebMessage, appendingTo bytes: inout [UInt8]) throws(WireError) {
        let start = bytes.count
        var encoder = CapnWebEncoder(
            output: CapnWebTextOutput(writer: JSONWriter(appendingTo: [])),
            configuration: configuration)
        swap(&encoder.output.writer.bytes, &bytes)
        do {
            try encoder.message(message)
        } catch {
            swap(&encoder.output.writer.bytes, &bytes)
            bytes.removeSubrange(start...)
            throw error
        }
        swap(&encoder.output.writer.bytes, &bytes)
    }

    /// Encodes one expression as compact UTF-8 JSON text; see ``encode(_:)``.
    public func encodeExpression(_ expression: CapnWebExpression) throws(WireError) -> [UInt8] {
        var encoder = CapnWebEncoder(
            output: CapnWebTextOutput(writer: JSONWriter(reservingCapacity: 32)),
            configuration: configuration)
        try encoder.expression(expression)
        return encoder.output.writer.bytes
    }

    /// Encodes one message as a JSON value, with the same checks as ``encode(_:)``.
    public func encodeToJSON(_ message: CapnWebMessage) throws(WireError) -> JSONValue {
        var encoder = CapnWebEncoder(output: CapnWebTreeOutput(), configuration: configuration)
        try encoder.message(message)
        return encoder.output.result
    }

    /// Encodes one expression as a JSON value, with the same checks as ``encode(_:)``.
    public func encodeExpressionToJSON(_ expression: CapnWebExpression) throws(WireError) -> JSONValue {
        var encoder = CapnWebEncoder(output: CapnWebTreeOutput(), configuration: configuration)
        try encoder.expression(expression)
        return encoder.output.result
    }
}
