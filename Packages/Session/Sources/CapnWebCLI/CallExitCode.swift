/// The exit statuses of `capnweb call`.
enum CallExitCode {
    /// The last expression's value was printed.
    static let success: Int32 = 0
    /// The server rejected the call; `Name: message` went to standard error.
    static let rejected: Int32 = 1
    /// An expression could not be parsed or evaluated; nothing was sent.
    static let invalidExpression: Int32 = 2
    /// The connection failed, or the answer could not be used.
    static let failed: Int32 = 3
    /// The answer did not come within `--timeout` (as `timeout(1)` reports it).
    static let timedOut: Int32 = 124
}
