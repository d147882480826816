/// Writes a ``JSONValue`` as compact JSON text in UTF-8.
///
/// The output has no white space and no trailing newline. Strings and numbers are written as
/// JavaScript's `JSON.stringify` writes them (see ``JSONWriter``), except that negative zero
/// is written `-0` so that a parsed value is written back unchanged.
///
/// ```swift
/// let serializer = JSONSerializer()
/// let text = try serializer.string(["b": 1, "a": [true, nil]])   // {"b":1,"a":[true,null]}
/// let canonical = JSONSerializer(configuration: .init(canonical: true))
/// let sorted = try canonical.string(["b": 1, "a": [true, nil]])  // {"a":[true,null],"b":1}
/// ```
public struct JSONSerializer: Sendable {
    /// How a ``JSONSerializer`` writes.
    public struct Configuration: Sendable, Hashable {
        /// Whether object members are written sorted by key instead of in their stored order.
        ///
        /// Keys are sorted by their UTF-16 code units, the order of RFC 8785 (JSON
        /// Canonicalization Scheme), so equal values (``JSONObject`` equality ignores member
        /// order) are written as identical bytes: the output can serve as a key for
        /// de-duplication or caching. Numbers are already written in the form that scheme
        /// prescribes; integers beyond 2^53 stay exact rather than being rounded to a double.
        public var canonical: Bool

        /// How many arrays and objects may nest; writing a value that nests deeper fails with
        /// ``WireError/Code/depthLimitExceeded``.
        ///
        /// A top-level scalar has depth 0 and a top-level array or object depth 1.
        public var maxDepth: Int

        /// Creates a configuration.
        public init(canonical: Bool = false, maxDepth: Int = 256) {
            self.canonical = canonical
            self.maxDepth = maxDepth
        }

        /// Stored key order and a depth limit of 256.
        public static var `default`: Configuration { Configuration() }
    }

    /// How this serializer writes.
    public var configuration: Configuration

    /// Creates a serializer.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
    }

    /// The JSON text of `value`, as UTF-8.
    ///
    /// - Throws: ``WireError/Code/nonFiniteNumber`` when the value holds an infinite or NaN
    ///   double, ``WireError/Code/depthLimitExceeded`` when it nests deeper than
    ///   ``Configuration/maxDepth``.
    public func serialize(_ value: JSONValue) throws(WireError) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 64)
        try writer.write(value, options: WriteOptions(configuration: configuration), depth: 0)
        return writer.bytes
    }

    /// Appends the JSON text of `value` to `bytes`.
    ///
    /// - Throws: The errors of ``serialize(_:)``; `bytes` is then left as it was.
    public func serialize(_ value: JSONValue, into bytes: inout [UInt8]) throws(WireError) {
        let originalCount = bytes.count
        var writer = JSONWriter()
        swap(&writer.bytes, &bytes)
        do {
            try writer.write(value, options: WriteOptions(configuration: configuration), depth: 0)
            swap(&writer.bytes, &bytes)
        } catch {
            swap(&writer.bytes, &bytes)
            bytes.removeSubrange(originalCount...)
            throw error
        }
    }

    /// The JSON text of `value`.
    ///
    /// - Throws: The errors of ``serialize(_:)``.
    public func string(_ value: JSONValue) throws(WireError) -> String {
        String(decoding: try serialize(value), as: UTF8.self)
    }
}
