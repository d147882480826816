/// A bounded wait ran out of time.
struct TimeLimitExceeded: Error, CustomStringConvertible {
    var description: String
}

/// Polls `condition` every few milliseconds until it holds, failing with ``TimeLimitExceeded``
/// once `limit` passes. The wait is cancellable.
func waitUntil(
    _ what: String,
    within limit: Duration = .seconds(10),
    _ condition: () throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while try !condition() {
        guard ContinuousClock.now < deadline else {
            throw TimeLimitExceeded(description: "\(what) did not happen within \(limit)")
        }
        try await Task.sleep(for: .milliseconds(2))
    }
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
