extension ArraySlice<String> {
    /// Takes the value of `option` from the front of the remaining arguments as a positive
    /// integer.
    ///
    /// - Throws: ``BenchmarkFailure`` naming `option`, followed by `usage`, when the value is
    ///   missing, not an integer, or not positive.
    public mutating func popPositiveInteger(after option: String, usage: String) throws -> Int {
        guard let text = popFirst(), let value = Int(text), value > 0 else {
            throw BenchmarkFailure("\(option) needs a positive integer\n\(usage)")
        }
        return value
    }
}
