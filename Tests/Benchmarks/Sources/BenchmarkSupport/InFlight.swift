/// Operations kept in flight: `total` of them made from `window` tasks, each making its share in
/// a loop, so that `window` are outstanding at any time.
///
/// ```swift
/// let elapsed = try await InFlight.run(total: 50_000, window: 64) { _ = try await api.square(2) }
/// print(Double(50_000) / elapsed.seconds, "calls/s")
/// ```
public enum InFlight {
    /// Runs the operations and returns the time from the first one's start to the last one's
    /// end.
    ///
    /// - Parameters:
    ///   - total: How many operations, split as evenly as possible over the tasks.
    ///   - window: How many tasks make them at once.
    ///   - executorPreference: Where the tasks prefer to run; `nil` for the cooperative pool.
    ///   - operation: One operation.
    public static func run(
        total: Int, window: Int, executorPreference: (any TaskExecutor)? = nil,
        _ operation: @escaping @Sendable () async throws -> Void
    ) async throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0 ..< window {
                let count = total / window + (worker < total % window ? 1 : 0)
                group.addTask(executorPreference: executorPreference) {
                    for _ in 0 ..< count { try await operation() }
                }
            }
            try await group.waitForAll()
        }
        return clock.now - start
    }
}
