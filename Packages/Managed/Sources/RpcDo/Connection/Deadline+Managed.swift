extension Deadline {
    /// Runs `operation`, failing with ``ManagedConnectionError/Code/timeout`` when `duration`
    /// passes first; the operation is cancelled then, and awaited.
    static func run<R: Sendable>(
        _ duration: Duration,
        _ operation: @escaping @Sendable () async throws(ManagedConnectionError) -> R
    ) async throws(ManagedConnectionError) -> R {
        do {
            guard let value = try await race(duration, operation) else {
                if Task.isCancelled { throw ManagedConnectionError(.cancelled, "cancelled") }
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
