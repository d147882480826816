/// The one error type of the Wire layer.
///
/// Every failure the layer reports (parsing JSON text, writing JSON text, decoding a Cap'n Web
/// or JSON-RPC message) is a `WireError`. Its ``code`` is stable and safe to switch over or to
/// log; its ``message`` is a human-readable reason. Errors that come from text also carry a
/// ``location`` (byte offset, line and column), and errors that come from a structured message
/// carry a ``path``, a JSON Pointer (RFC 6901) to the offending part.
///
/// ```swift
/// do {
///     _ = try JSONValue(parsing: "[1,]")
/// } catch {
///     print(error.code)        // unexpectedByte
///     print(error.location!)   // line 1, column 4 (byte 3)
/// }
/// ```
public struct WireError: Error, Hashable, Sendable {
    /// A stable identifier for the kind of failure.
    ///
    /// Codes are compared by ``rawValue``, which never changes between releases.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Hashable, Sendable, CaseIterable {
            case unexpectedEndOfInput
            case unexpectedByte
            case invalidNumber
            case numberOutOfRange
            case invalidEscape
            case loneSurrogate
            case invalidUTF8
            case controlCharacter
            case trailingData
            case depthLimitExceeded
            case inputTooLarge
            case duplicateKey
            case nonFiniteNumber
            case unknownTag
            case wrongArity
            case unescapedArray
            case invalidBigInt
            case invalidBase64
            case unknownBytesType
            case misalignedBytes
            case invalidMessage
            case invalidExpression
            case invalidJSONRPC
        }

        private let wrapped: Wrapped

        private init(_ wrapped: Wrapped) {
            self.wrapped = wrapped
        }

        /// The stable string form of the code, for example `"unexpectedByte"`.
        public var rawValue: String { wrapped.rawValue }

        /// Creates a code from its stable string form; `nil` when no such code exists.
        public init?(rawValue: String) {
            guard let wrapped = Wrapped(rawValue: rawValue) else { return nil }
            self.wrapped = wrapped
        }

        /// The stable string form of the code.
        public var description: String { wrapped.rawValue }

        /// Every code, in declaration order (for exhaustive tests and documentation).
        package static let all: [Code] = Wrapped.allCases.map(Code.init)

        /// The input ended in the middle of a value.
        public static let unexpectedEndOfInput = Code(.unexpectedEndOfInput)
        /// A byte that cannot start or continue the value at that position.
        public static let unexpectedByte = Code(.unexpectedByte)
        /// A number that does not follow the JSON grammar (leading zero, lone minus, missing digits).
        public static let invalidNumber = Code(.invalidNumber)
        /// A number whose magnitude cannot be represented (it would be infinite).
        public static let numberOutOfRange = Code(.numberOutOfRange)
        /// A backslash escape that JSON does not define, or a malformed `\u` escape.
        public static let invalidEscape = Code(.invalidEscape)
        /// A `\u` escape naming half of a surrogate pair without the other half.
        public static let loneSurrogate = Code(.loneSurrogate)
        /// Bytes that are not well-formed UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// An unescaped control character (U+0000 to U+001F) inside a string.
        public static let controlCharacter = Code(.controlCharacter)
        /// Something other than white space after the top-level value.
        public static let trailingData = Code(.trailingData)
        /// Arrays and objects nested deeper than the configured limit.
        public static let depthLimitExceeded = Code(.depthLimitExceeded)
        /// The input is larger than the configured limit.
        public static let inputTooLarge = Code(.inputTooLarge)
        /// An object repeats a key and the configuration rejects duplicates.
        public static let duplicateKey = Code(.duplicateKey)
        /// Infinity or NaN where JSON can only hold finite numbers.
        public static let nonFiniteNumber = Code(.nonFiniteNumber)
        /// A Cap'n Web message or expression with a tag this codec does not know.
        public static let unknownTag = Code(.unknownTag)
        /// A Cap'n Web message or expression with the wrong number of elements.
        public static let wrongArity = Code(.wrongArity)
        /// A literal array in a Cap'n Web expression that is not wrapped in the escape array.
        public static let unescapedArray = Code(.unescapedArray)
        /// A Cap'n Web `bigint` whose text is not a decimal integer or is too long.
        public static let invalidBigInt = Code(.invalidBigInt)
        /// Cap'n Web `bytes` whose text is not base64.
        public static let invalidBase64 = Code(.invalidBase64)
        /// Cap'n Web `bytes` with a type marker this codec does not know.
        public static let unknownBytesType = Code(.unknownBytesType)
        /// Cap'n Web typed-array bytes whose length is not a multiple of the element size.
        public static let misalignedBytes = Code(.misalignedBytes)
        /// A message that is not a tagged array, or whose fields have the wrong types.
        public static let invalidMessage = Code(.invalidMessage)
        /// An expression whose operands have the wrong types.
        public static let invalidExpression = Code(.invalidExpression)
        /// A JSON-RPC 2.0 message that breaks the specification.
        public static let invalidJSONRPC = Code(.invalidJSONRPC)
    }

    /// Where in a text input an error was found.
    public struct Location: Hashable, Sendable, CustomStringConvertible {
        /// Zero-based byte offset into the input.
        public var offset: Int
        /// One-based line number (lines end at `\n`).
        public var line: Int
        /// One-based column, counted in Unicode scalars from the start of the line.
        public var column: Int

        /// Creates a location.
        public init(offset: Int, line: Int, column: Int) {
            self.offset = offset
            self.line = line
            self.column = column
        }

        /// Computes the line and column of `offset` in `bytes`.
        ///
        /// Runs in time linear in `offset`; meant for the error path only.
        public init(offset: Int, in bytes: UnsafeBufferPointer<UInt8>) {
            let end = min(max(offset, 0), bytes.count)
            var line = 1
            var column = 1
            var index = 0
            while index < end {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
                index += 1
            }
            self.init(offset: offset, line: line, column: column)
        }

        /// `line L, column C (byte B)`.
        public var description: String { "line \(line), column \(column) (byte \(offset))" }
    }

    /// The kind of failure.
    public var code: Code
    /// A human-readable reason, without the location.
    public var message: String
    /// Where in a text input the error was found, when it came from text.
    public var location: Location?
    /// The offending part of a structured message as a JSON Pointer, for example `/1/3/0`;
    /// empty for the message as a whole.
    public var path: String?

    /// Creates an error.
    public init(code: Code, message: String, location: Location? = nil, path: String? = nil) {
        self.code = code
        self.message = message
        self.location = location
        self.path = path
    }
}

extension WireError: CustomStringConvertible {
    /// `error at line L, column C (byte B): reason`, or `reason (at path)`, or the reason alone.
    public var description: String {
        if let location {
            return "error at \(location): \(message)"
        }
        if let path {
            return "\(message) (at \(path.isEmpty ? "message root" : path))"
        }
        return message
    }
}
