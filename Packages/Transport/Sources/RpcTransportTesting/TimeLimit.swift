import RpcTransport

/// A bounded run of ``withTimeLimit(_:_:_:)`` ran out of time.
public struct TimeLimitExceeded: Error, CustomStringConvertible, Sendable {
    /// What ran out of time, as the test described it.
    public var what: String
    /// The limit it had.
    public var limit: Duration

    /// Creates the error for `what`, bounded by `limit`.
    public init(what: String, limit: Duration) {
        self.what = what
        self.limit = limit
    }

    /// For example `the close did not finish within 2.0 seconds`.
    public var description: String { "\(what) did not finish within \(limit)" }
}

/// Runs `body` and fails with ``TimeLimitExceeded`` when `limit` passes first: the tests' one
/// time limit, on the stack's one timeout race (`Deadline`, in `RpcTransport`). `body` is cancelled
/// then and awaited, so a body that ignores cancellation fails the test late rather than
/// passing it.
///
/// ```swift
/// let closure = try await withTimeLimit(.seconds(5), "the close") { await transport.waitUntilClosed() }
/// ```
public func withTimeLimit<T: Sendable>(
    _ limit: Duration = .seconds(20),
    _ what: String = "the operation",
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    guard let value = try await Deadline.race(limit, body) else {
        throw TimeLimitExceeded(what: what, limit: limit)
    }
    return value
}
