extension JSONParser {
    /// Limits and policies applied while parsing.
    ///
    /// The defaults suit messages received from untrusted peers: nesting up to 256 levels,
    /// inputs up to 32 MiB, duplicate object keys resolved the way JavaScript's `JSON.parse`
    /// resolves them, and escapes of lone surrogates rejected.
    public struct Configuration: Sendable, Hashable {
        /// What the parser does when an object repeats a key.
        ///
        /// Keys are compared by their UTF-8 bytes after escapes are decoded, so `"a"` and
        /// `"\u0061"` are the same key.
        public enum DuplicateKeyPolicy: Sendable, Hashable {
            /// Keep the key at its first position with the value of its last occurrence, as
            /// JavaScript's `JSON.parse` does.
            case useLast
            /// Fail with ``WireError/Code/duplicateKey`` at the repeated key.
            case reject
        }

        /// What the parser does with a `\u` escape naming half of a UTF-16 surrogate pair
        /// without the other half, such as `"\ud800"`.
        ///
        /// JSON's grammar allows such escapes and JavaScript strings can hold lone surrogates,
        /// but a Swift `String` holds only Unicode scalars and cannot: a lone surrogate either
        /// fails the parse or becomes U+FFFD REPLACEMENT CHARACTER, as decoding UTF-16 with
        /// replacement does. Only escapes are concerned: the raw bytes of a surrogate are never
        /// well-formed UTF-8 and always fail with ``WireError/Code/invalidUTF8``.
        public enum LoneSurrogatePolicy: Sendable, Hashable {
            /// Fail with ``WireError/Code/loneSurrogate`` at the unpaired escape.
            case reject
            /// Decode each unpaired escape as U+FFFD; a high surrogate followed by the escape
            /// of a low surrogate still decodes as the pair's scalar.
            case replaceWithReplacementCharacter
        }

        /// The deepest nesting of arrays and objects accepted.
        ///
        /// With the default of 256, a value nested in 256 arrays or objects parses and one
        /// nested in 257 fails with ``WireError/Code/depthLimitExceeded``; a value of 0 accepts
        /// only scalars. The parser descends recursively and each level of nesting takes up to
        /// about half a kilobyte of the calling thread's stack in an optimised build (more in a
        /// debug build): the default is safe on any thread, while limits in the thousands need
        /// a thread whose stack is known to be large enough.
        public var maxDepth: Int

        /// The largest input accepted, in bytes (default 32 MiB).
        ///
        /// A larger input fails with ``WireError/Code/inputTooLarge`` before any of it is read.
        public var maxInputSize: Int

        /// How repeated object keys are handled (default ``DuplicateKeyPolicy/useLast``).
        public var duplicateKeys: DuplicateKeyPolicy

        /// How `\u` escapes of lone surrogates are handled (default
        /// ``LoneSurrogatePolicy/reject``, as RFC 8259 strict parsers do).
        public var loneSurrogates: LoneSurrogatePolicy

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - maxDepth: The deepest nesting of arrays and objects accepted.
        ///   - maxInputSize: The largest input accepted, in bytes.
        ///   - duplicateKeys: How repeated object keys are handled.
        ///   - loneSurrogates: How `\u` escapes of lone surrogates are handled.
        public init(
            maxDepth: Int = 256,
            maxInputSize: Int = 32 * 1024 * 1024,
            duplicateKeys: DuplicateKeyPolicy = .useLast,
            loneSurrogates: LoneSurrogatePolicy = .reject
        ) {
            self.maxDepth = maxDepth
            self.maxInputSize = maxInputSize
            self.duplicateKeys = duplicateKeys
            self.loneSurrogates = loneSurrogates
        }

        /// The default configuration: depth 256, 32 MiB, last duplicate value wins, lone
        /// surrogates rejected.
        public static var `default`: Configuration { Configuration() }
    }
}
