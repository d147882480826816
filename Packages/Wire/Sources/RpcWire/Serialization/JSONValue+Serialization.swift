extension JSONValue {
    /// The compact JSON text of this value, as UTF-8.
    ///
    /// - Parameter canonical: Whether object members are sorted by key (see
    ///   ``JSONSerializer/Configuration/canonical``).
    /// - Throws: ``WireError/Code/nonFiniteNumber`` for an infinite or NaN double,
    ///   ``WireError/Code/depthLimitExceeded`` for nesting deeper than 256 levels.
    public func serialized(canonical: Bool = false) throws(WireError) -> [UInt8] {
        try JSONSerializer(configuration: .init(canonical: canonical)).serialize(self)
    }

    /// The compact JSON text of this value.
    ///
    /// - Parameter canonical: Whether object members are sorted by key (see
    ///   ``JSONSerializer/Configuration/canonical``).
    /// - Throws: The errors of ``serialized(canonical:)``.
    public func jsonString(canonical: Bool = false) throws(WireError) -> String {
        try JSONSerializer(configuration: .init(canonical: canonical)).string(self)
    }

    /// The compact JSON text of this value, never failing: a non-finite double is written as
    /// `null` (as `JSON.stringify` writes it) and nesting is not limited.
    fileprivate var lenientJSONText: String {
        var writer = JSONWriter()
        let options = WriteOptions(canonical: false, maxDepth: .max, writesNonFiniteAsNull: true)
        do {
            try writer.write(self, options: options, depth: 0)
        } catch {
            // Unreachable with these options; keep whatever was written.
        }
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of this value, with members in stored order.
    ///
    /// A non-finite double is shown as `null`, as `JSON.stringify` shows it; use
    /// ``jsonString(canonical:)`` to have it reported instead.
    public var description: String { lenientJSONText }
}

extension JSONValue: CustomDebugStringConvertible {
    /// The compact JSON text of this value, as ``description`` shows it.
    public var debugDescription: String { lenientJSONText }
}
