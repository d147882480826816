/// Whether and how a lost connection is re-established.
///
/// ```swift
/// let policy = ReconnectPolicy(maxAttempts: 5, backoff: Backoff(maxDelay: .seconds(30)))
/// ```
public struct ReconnectPolicy: Sendable, Hashable {
    /// How many reconnect attempts follow one loss before giving up; `nil` for no limit.
    /// Default 10.
    public var maxAttempts: Int?
    /// The wait before each attempt.
    public var backoff: Backoff

    /// Creates a policy.
    public init(maxAttempts: Int? = 10, backoff: Backoff = Backoff()) {
        self.maxAttempts = maxAttempts
        self.backoff = backoff
    }

    /// Reconnects up to 10 times with the default backoff.
    public static var `default`: ReconnectPolicy { ReconnectPolicy() }

    /// Never reconnects.
    public static var never: ReconnectPolicy { ReconnectPolicy(maxAttempts: 0) }

    /// Whether `attempt` (1-based) may still be made.
    public func allows(attempt: Int) -> Bool {
        guard let maxAttempts else { return true }
        return attempt <= maxAttempts
    }
}
