/// Seconds held as a `Double` (a peer's `retryAfter`, a configured timeout) turned into a
/// `Duration` without trapping.
///
/// `Duration.seconds(_:)` with a `Double` traps when the value is not finite or too large for
/// its 128-bit count of attoseconds (about 1.7e20 s), so a server answering
/// `{"retryAfter": 1e300}` would otherwise end the client's process. Values are clamped to
/// ``limit`` first, which every caller caps further anyway.
enum ClampedSeconds {
    /// The longest duration produced: 10^12 s, about 31,700 years.
    static let limit: Double = 1e12

    /// `seconds` as a duration, clamped to 0...``limit``; `nil` when it is not finite or negative.
    static func duration(_ seconds: Double) -> Duration? {
        guard seconds.isFinite, seconds >= 0 else { return nil }
        return .seconds(min(seconds, limit))
    }
}
