/// A strict RFC 8259 JSON parser that produces ``JSONValue`` trees.
///
/// The parser reads UTF-8 in a single pass and accepts exactly the JSON grammar:
///
/// - Any value may stand at the top level. Only space, tab, line feed and carriage return may
///   surround it; anything else after the value fails with ``WireError/Code/trailingData``, and
///   an empty input fails with ``WireError/Code/unexpectedEndOfInput``.
/// - A UTF-8 byte order mark is not white space in JSON and is rejected with
///   ``WireError/Code/unexpectedByte``; strip it first if a peer sends one.
/// - A number written without fraction or exponent that fits in `Int64` becomes
///   ``JSONValue/integer(_:)``; any other number becomes a correctly rounded
///   ``JSONValue/double(_:)``. `-0` keeps its sign and becomes `.double(-0.0)`, since no integer
///   can hold it. A number too large for a `Double` fails with
///   ``WireError/Code/numberOutOfRange``; one too small becomes zero.
/// - Strings must be well-formed UTF-8, may not contain raw control characters, and may use
///   only the escapes JSON defines; a `\u` escape naming half of a surrogate pair must be paired,
///   unless ``Configuration/loneSurrogates`` lets it become U+FFFD.
/// - Repeated object keys follow ``Configuration/duplicateKeys``.
///
/// Every failure is a ``WireError`` whose ``WireError/location`` gives the byte offset, line
/// and column of the offending byte (``WireError/Code/inputTooLarge``, which concerns the whole
/// input, has no location).
///
/// ```swift
/// let parser = JSONParser()
/// let message = try parser.parse(#"["push",["pipeline",0,["echo"],[42]]]"#)
/// print(message[0]?.stringValue ?? "")   // push
/// ```
///
/// A parser holds only its configuration; one instance may be shared freely between tasks.
public struct JSONParser: Sendable {
    /// The limits and policies this parser applies.
    public var configuration: Configuration

    /// Creates a parser.
    ///
    /// - Parameter configuration: The limits and policies to apply.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
    }

    /// Parses JSON text held in raw memory as UTF-8.
    ///
    /// The bytes are only read during the call; nothing refers to them afterwards.
    ///
    /// - Parameter bytes: The UTF-8 encoded JSON text.
    /// - Returns: The value the text denotes.
    /// - Throws: ``WireError`` with a location when the text is not valid JSON or exceeds a
    ///   limit of ``configuration``.
    public func parse(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> JSONValue {
        try checkSize(bytes.count)
        guard bytes.count > 0 else {
            try ParseDiagnostics.emptyInput()
        }
        return try bytes.withMemoryRebound(to: UInt8.self) { (input) throws(WireError) -> JSONValue in
            // A small workspace on the machine stack holds the reader's stacks for documents
            // of ordinary size, so that those need no heap memory beyond the result.
            try withUnsafeTemporaryAllocation(
                byteCount: JSONReader.workspaceByteCount,
                alignment: JSONReader.workspaceAlignment
            ) { (workspace) throws(WireError) -> JSONValue in
                var reader = JSONReader(input: input, configuration: configuration, workspace: workspace)
                return try reader.parseDocument()
            }
        }
    }

    /// Parses JSON text given as UTF-8 bytes.
    ///
    /// - Parameter bytes: The UTF-8 encoded JSON text.
    /// - Returns: The value the text denotes.
    /// - Throws: ``WireError`` with a location when the text is not valid JSON or exceeds a
    ///   limit of ``configuration``.
    public func parse(_ bytes: [UInt8]) throws(WireError) -> JSONValue {
        try checkSize(bytes.count)
        let outcome = bytes.withUnsafeBytes { raw in
            Result { () throws(WireError) -> JSONValue in
                try parse(raw)
            }
        }
        return try outcome.get()
    }

    /// Parses JSON text held in a string.
    ///
    /// - Parameter text: The JSON text.
    /// - Returns: The value the text denotes.
    /// - Throws: ``WireError`` with a location when the text is not valid JSON or exceeds a
    ///   limit of ``configuration``.
    public func parse(_ text: String) throws(WireError) -> JSONValue {
        try checkSize(text.utf8.count)
        let outcome = text.utf8.withContiguousStorageIfAvailable { utf8 in
            Result { () throws(WireError) -> JSONValue in
                try parse(UnsafeRawBufferPointer(utf8))
            }
        }
        if let outcome {
            return try outcome.get()
        }
        var contiguous = text
        contiguous.makeContiguousUTF8()
        return try parse(Array(contiguous.utf8))
    }

    /// Parses JSON text from any collection of UTF-8 bytes.
    ///
    /// Contiguous collections such as `ArraySlice<UInt8>` or `Data` are read in place; others
    /// are copied into an array first.
    ///
    /// - Parameter bytes: The UTF-8 encoded JSON text.
    /// - Returns: The value the text denotes.
    /// - Throws: ``WireError`` with a location when the text is not valid JSON or exceeds a
    ///   limit of ``configuration``.
    public func parse<Bytes: Collection>(_ bytes: Bytes) throws(WireError) -> JSONValue
    where Bytes.Element == UInt8 {
        let outcome = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(WireError) -> JSONValue in
                try parse(UnsafeRawBufferPointer(buffer))
            }
        }
        if let outcome {
            return try outcome.get()
        }
        try checkSize(bytes.count)
        return try parse(Array(bytes))
    }

    private func checkSize(_ count: Int) throws(WireError) {
        if count > configuration.maxInputSize {
            try ParseDiagnostics.inputTooLarge(count: count, limit: configuration.maxInputSize)
        }
    }
}
