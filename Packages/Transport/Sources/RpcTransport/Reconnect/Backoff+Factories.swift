extension Backoff {
    /// Doubling ceilings from `base` up to `max`, with full jitter.
    ///
    /// ```swift
    /// let backoff = Backoff.exponential(base: .seconds(1), max: .seconds(30))
    /// ```
    public static func exponential(base: Duration, max: Duration) -> Backoff {
        Backoff(initialDelay: base, maxDelay: max, multiplier: 2, jitter: .full)
    }

    /// A copy of `other`, so that `Backoff(.exponential(base:max:))` reads naturally in a builder.
    public init(_ other: Backoff) {
        self = other
    }
}
