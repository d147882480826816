/// Runs work against a timeout, for the managed connection's own errors.
enum Deadline {
    /// Runs `operation`, failing with ``ManagedConnectionError/Code/timeout`` when `duration`
    /// passes first; the operation is cancelled then, and awaited.
    static func run<R: Sendable>(
        _ duration: Duration,
        _ operation: @escaping @Sendable () async throws(ManagedConnectionError) -> R
    ) async throws(ManagedConnectionError) -> R {
        do {
            return try await withThrowingTaskGroup(of: R?.self) { group in
                group.addTask { try await operation() }
                group.addTask {
                    try await Task.sleep(for: duration)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let value = first else {
                    throw ManagedConnectionError(.timeout, "no answer within \(duration)")
                }
                return value
            }
        } catch let error as ManagedConnectionError {
            throw error
        } catch {
            throw ManagedConnectionError(.cancelled, "cancelled")
        }
    }
}
