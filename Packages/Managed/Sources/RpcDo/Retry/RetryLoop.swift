import RpcTransport

/// The stack's one call-retry loop, run by ``ManagedChannel`` for every call of the RpcDo,
/// RivetKit and Tinyvex clients: up to ``maxRetries`` more attempts, each after the backoff delay (or the peer's
/// `retryAfter` hint, capped at ``maxRetryDelay``), and only while the caller's per-error rule
/// says the failed attempt is safe to repeat.
public struct RetryLoop: Sendable {
    /// How many attempts may follow the first.
    public var maxRetries: Int
    /// The wait before each retry, when the error carries no hint.
    public var backoff: Backoff
    /// The longest wait a `retryAfter` hint may ask for.
    public var maxRetryDelay: Duration

    /// Creates a loop of up to `maxRetries` retries after the first attempt.
    public init(maxRetries: Int, backoff: Backoff, maxRetryDelay: Duration) {
        self.maxRetries = maxRetries
        self.backoff = backoff
        self.maxRetryDelay = maxRetryDelay
    }

    /// Runs `attempt` until it returns, or fails in a way that must not be retried.
    ///
    /// - Parameters:
    ///   - isSafeToRetry: Whether a failed attempt may be made again, given its error and
    ///     whether it reached the transport (its ``SentFlag``).
    ///   - retryAfter: The wait the error asks for, if any.
    ///   - cancelled: The error thrown when the task is cancelled while waiting to retry.
    ///   - onRetry: Told of each retry (the error, and the retry's number from 1).
    ///   - attempt: One attempt; it sets the flag once its request has been handed to the
    ///     transport.
    /// - Throws: The last attempt's error, or `cancelled()`.
    nonisolated(nonsending) public func run<Result, Failure: Error>(
        isSafeToRetry: (Failure, _ sent: Bool) -> Bool,
        retryAfter: (Failure) -> Duration? = { _ in nil },
        cancelled: () -> Failure,
        onRetry: (Failure, Int) -> Void = { _, _ in },
        _ attempt: nonisolated(nonsending) (SentFlag) async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        var retries = 0
        while true {
            let sent = SentFlag()
            do {
                return try await attempt(sent)
            } catch {
                guard retries < max(0, maxRetries), !Task.isCancelled, isSafeToRetry(error, sent.value) else {
                    throw error
                }
                retries += 1
                onRetry(error, retries)
                do {
                    try await Task.sleep(for: delay(retry: retries, hint: retryAfter(error)))
                } catch {
                    throw cancelled()
                }
            }
        }
    }

    /// The wait before retry number `retry` (from 1): the hint, capped at ``maxRetryDelay``,
    /// or the backoff's delay.
    public func delay(retry: Int, hint: Duration?) -> Duration {
        if let hint {
            return min(max(hint, .zero), maxRetryDelay)
        }
        return backoff.delay(forAttempt: retry)
    }
}
