/// How often the rate-limited method (`todos.search`) may be called: at most ``calls`` calls
/// per ``window``, counted across all connections of a store.
///
/// A call over the limit is rejected with an error named `RateLimitExceeded` whose
/// `retryAfter` property says, in seconds, when the current window ends.
///
/// ```swift
/// let store = TodoStore(rateLimit: RateLimit(calls: 2, window: .seconds(1)))
/// ```
public struct RateLimit: Sendable, Hashable {
    /// The calls allowed per window (default 5); 0 rejects every call.
    public var calls: Int
    /// The length of a window (default 1 second).
    public var window: Duration

    /// Creates a limit of `calls` calls per `window`.
    public init(calls: Int = 5, window: Duration = .seconds(1)) {
        self.calls = max(0, calls)
        self.window = window > .zero ? window : .milliseconds(1)
    }
}
