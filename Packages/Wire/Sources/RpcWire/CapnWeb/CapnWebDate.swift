/// JavaScript's rules for the time value of a `Date`, as ``CapnWebExpression/date(_:)`` applies
/// them.
///
/// A JavaScript `Date` holds a whole number of milliseconds within ±8.64e15 (100,000,000 days
/// either side of 1970); `new Date(t)` with any other time is the invalid date, and a fraction
/// is cut off towards zero (the specification's `TimeClip`). So `["date", 1e300]` is the
/// invalid date for the reference peer, as `["date", null]` is.
public enum CapnWebDate {
    /// The largest magnitude of a valid date's time, in milliseconds since 1970: 8.64e15.
    public static let maxMilliseconds: Double = 8.64e15

    /// `milliseconds` as the time of a JavaScript `Date` made from it: `nil` (the invalid date)
    /// when it is `nil`, not finite or beyond ±``maxMilliseconds``, otherwise the value with
    /// its fraction cut off towards zero (and negative zero made zero).
    ///
    /// ```swift
    /// CapnWebDate.timeClip(1e300)   // nil
    /// CapnWebDate.timeClip(1.9)     // 1
    /// ```
    @inlinable
    public static func timeClip(_ milliseconds: Double?) -> Double? {
        guard let milliseconds, milliseconds.isFinite, milliseconds.magnitude <= maxMilliseconds else {
            return nil
        }
        return milliseconds.rounded(.towardZero) + 0
    }
}
