extension ReconnectPolicy {
    /// Never reconnects; the same as ``never``.
    public static var none: ReconnectPolicy { .never }

    /// Reconnects at once, without waiting, up to `maxAttempts` times after each loss.
    ///
    /// - Parameter maxAttempts: How many attempts follow one loss.
    public static func immediate(maxAttempts: Int) -> ReconnectPolicy {
        ReconnectPolicy(maxAttempts: maxAttempts, backoff: Backoff(initialDelay: .zero, maxDelay: .zero, jitter: .none))
    }

    /// Reconnects up to `maxAttempts` times after each loss, waiting a random time (full jitter)
    /// below a ceiling that starts at `baseDelay`, doubles with each attempt and stops at `maxDelay`.
    ///
    /// ```swift
    /// config.reconnect = .exponentialBackoff(maxAttempts: 10, baseDelay: .seconds(1), maxDelay: .seconds(30))
    /// ```
    public static func exponentialBackoff(maxAttempts: Int, baseDelay: Duration, maxDelay: Duration) -> ReconnectPolicy {
        ReconnectPolicy(maxAttempts: maxAttempts, backoff: .exponential(base: baseDelay, max: maxDelay))
    }
}
