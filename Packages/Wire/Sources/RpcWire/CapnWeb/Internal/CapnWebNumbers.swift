/// Number conversions shared by the Cap'n Web decoder and encoder.
enum CapnWebNumbers {
    /// 2^53: beyond it not every integer is a double, so integral doubles are left as doubles.
    static let maxSafeInteger: Double = 9_007_199_254_740_992

    /// `value` as an integer when it is integral and within ±2^53, otherwise `nil`.
    @inline(__always)
    static func exactInteger(_ value: Double) -> Int64? {
        guard value.magnitude <= maxSafeInteger else { return nil }
        return Int64(exactly: value)
    }
}
