/// What a supervised connection does after a failure to open, a failed ready handshake or a
/// lost link: the protocol above decides, per failure (see
/// ``ReconnectingConnection/Hooks/decideRetry``).
///
/// ```swift
/// hooks.decideRetry = { error, context in
///     isActorGone(error) ? .goIdle : RetryDecision.default(for: context)
/// }
/// ```
public enum RetryDecision: Sendable, Hashable {
    /// Try again after the policy's backoff, while the ``ReconnectPolicy-struct`` allows attempts
    /// (then give up).
    case retry
    /// Stop trying: publish `disconnected` with the error and fail whoever waits. A start or an
    /// explicit reconnect begins again.
    case giveUp
    /// Stop trying and go back to idle, as if never started: publish `disconnected` with the
    /// error and fail whoever waits; only a start begins again (an explicit reconnect does
    /// not). For a peer that is gone rather than unreachable.
    case goIdle

    /// The decision without a protocol's help: retry once a link was ready since the start (or
    /// during an explicit reconnect), give up on a first connection that cannot be made, so
    /// that a wrong address is reported at once rather than retried.
    public static func `default`(for context: ConnectionFailureContext) -> RetryDecision {
        context.everConnected ? .retry : .giveUp
    }
}
