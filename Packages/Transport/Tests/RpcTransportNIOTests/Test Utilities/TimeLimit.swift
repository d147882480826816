/// A bounded wait ran out of time.
struct TimeLimitExceeded: Error, CustomStringConvertible {
    var description: String
}

/// Runs `body`, failing with ``TimeLimitExceeded`` once `limit` passes. `body` must react to
/// cancellation for the limit to hold.
func withTimeLimit<T: Sendable>(
    _ limit: Duration = .seconds(20),
    _ what: String = "the operation",
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask {
            try await body()
        }
        group.addTask {
            try await Task.sleep(for: limit)
            throw TimeLimitExceeded(description: "\(what) did not finish within \(limit)")
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else {
            throw TimeLimitExceeded(description: "\(what) produced nothing")
        }
        return first
    }
}
