/// Decodes and encodes Cap'n Web messages (the JSON wire format of cloudflare/capnweb).
///
/// Decoding checks every message and expression form and fails with a ``WireError`` whose
/// ``WireError/path`` is a JSON Pointer to the offending part (`/1/3/0`) and whose
/// ``WireError/code`` says what is wrong (``WireError/Code/unknownTag``,
/// ``WireError/Code/wrongArity``, ``WireError/Code/unescapedArray``, ...). Encoding writes
/// compact JSON straight to bytes, as the reference peer writes it, so decoding a message and
/// encoding it again gives back the same bytes.
///
/// ```swift
/// let codec = CapnWebCodec()
/// let message = try codec.decode(#"["push",["pipeline",0,["square"],[5]]]"#)
/// print(message)                   // push pipeline(0, ["square"], [5])
/// let bytes = try codec.encode(.release(importID: 1, refcount: 1))
/// ```
///
/// A codec holds only its configuration; one instance may be shared freely between tasks.
public struct CapnWebCodec: Sendable {
    /// Limits applied to every message, matching the reference receiver's defaults.
    public struct Configuration: Sendable, Hashable {
        /// The deepest nesting of arrays and objects in one message (default 256). The message
        /// array itself is at depth 1; an escaped literal array takes two levels.
        public var maxDepth: Int
        /// The most digits a `bigint` may have, not counting its sign (default 16384).
        public var maxBigIntDigits: Int
        /// The largest encoded message accepted by the byte and string decoders, in bytes
        /// (default 32 MiB).
        public var maxMessageSize: Int
        /// How a string's `\u` escape of a lone UTF-16 surrogate (`"\ud800"`) is decoded
        /// (default ``JSONParser/Configuration/LoneSurrogatePolicy/replaceWithReplacementCharacter``).
        ///
        /// JavaScript strings may hold lone surrogates and the reference peer sends and accepts
        /// them, so by default such an escape becomes U+FFFD REPLACEMENT CHARACTER (a Swift
        /// `String` cannot hold a lone surrogate) instead of failing the whole message.
        public var loneSurrogates: JSONParser.Configuration.LoneSurrogatePolicy

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - maxDepth: The deepest nesting of arrays and objects in one message.
        ///   - maxBigIntDigits: The most digits a `bigint` may have, not counting its sign.
        ///   - maxMessageSize: The largest encoded message accepted, in bytes.
        ///   - loneSurrogates: How a `\u` escape of a lone surrogate is decoded.
        public init(
            maxDepth: Int = 256,
            maxBigIntDigits: Int = 16_384,
            maxMessageSize: Int = 32 * 1024 * 1024,
            loneSurrogates: JSONParser.Configuration.LoneSurrogatePolicy = .replaceWithReplacementCharacter
        ) {
            self.maxDepth = maxDepth
            self.maxBigIntDigits = maxBigIntDigits
            self.maxMessageSize = maxMessageSize
            self.loneSurrogates = loneSurrogates
        }

        /// The default limits: depth 256, 16384 bigint digits, 32 MiB; lone surrogates become
        /// U+FFFD.
        public static var `default`: Configuration { Configuration() }
    }

    /// The limits this codec applies.
    public var configuration: Configuration

    /// Creates a codec.
    ///
    /// - Parameter configuration: The limits to apply.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
    }

    /// The JSON parser configured with this codec's size and depth limits and surrogate policy.
    var parser: JSONParser {
        JSONParser(
            configuration: JSONParser.Configuration(
                maxDepth: configuration.maxDepth,
                maxInputSize: configuration.maxMessageSize,
                loneSurrogates: configuration.loneSurrogates))
    }

    /// The error for a message larger than the configured limit.
    func tooLarge(_ count: Int) -> WireError {
        WireError(
            code: .inputTooLarge,
            message: "message of \(count) bytes exceeds the limit of \(configuration.maxMessageSize) bytes")
    }
}
