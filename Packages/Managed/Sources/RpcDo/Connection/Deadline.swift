/// Runs work against a timeout: the managed connection's and the client's.
enum Deadline {
    /// Runs `operation`; `nil` when `duration` passes first, in which case the operation is
    /// cancelled (and awaited). The operation's own errors are rethrown.
    static func race<R: Sendable>(
        _ duration: Duration,
        _ operation: @escaping @Sendable () async throws -> R
    ) async throws -> R? {
        try await withThrowingTaskGroup(of: R?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: duration)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    /// Runs `operation`, failing with ``ManagedConnectionError/Code/timeout`` when `duration`
    /// passes first; the operation is cancelled then, and awaited.
    static func run<R: Sendable>(
        _ duration: Duration,
        _ operation: @escaping @Sendable () async throws(ManagedConnectionError) -> R
    ) async throws(ManagedConnectionError) -> R {
        do {
            guard let value = try await race(duration, operation) else {
                throw ManagedConnectionError(.timeout, "no answer within \(duration)")
            }
            return value
        } catch let error as ManagedConnectionError {
            throw error
        } catch {
            throw ManagedConnectionError(.cancelled, "cancelled")
        }
    }
}
