/// The one timeout race of the stack: runs an operation against a time limit, and when the
/// limit passes first (or the caller is cancelled), cancels the operation and waits for it to
/// end, so nothing outlives the caller.
///
/// Calls, requests, keepalive probes and the command line's deadlines all run through it.
///
/// ```swift
/// guard let answer = try await Deadline.race(.seconds(5), { try await request() }) else {
///     throw TimeoutError()
/// }
/// ```
public enum Deadline {
    /// Runs `operation`; returns `nil` when `duration` passes first, or the calling task is
    /// cancelled first. Then `onTimeout` runs (it should make an operation that ignores
    /// cancellation end, e.g. by cutting its connection), and the operation is cancelled and
    /// awaited. The operation's own errors are rethrown.
    public static func race<R: Sendable>(
        _ duration: Duration,
        onTimeout: (@Sendable () async -> Void)? = nil,
        _ operation: @escaping @Sendable () async throws -> R
    ) async throws -> R? {
        try await withThrowingTaskGroup(of: R?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                // A cancelled caller ends the race at once, as the limit would.
                try? await Task.sleep(for: duration)
                return nil
            }
            defer { group.cancelAll() }
            let first = try await group.next() ?? nil
            if first == nil, let onTimeout {
                await onTimeout()
            }
            return first
        }
    }

    /// Runs `operation` unless `deadline` passes first (see ``race(_:onTimeout:_:)``).
    public static func race<R: Sendable>(
        until deadline: ContinuousClock.Instant,
        onTimeout: (@Sendable () async -> Void)? = nil,
        _ operation: @escaping @Sendable () async throws -> R
    ) async throws -> R? {
        try await race(max(.zero, deadline - ContinuousClock.now), onTimeout: onTimeout, operation)
    }

    /// Whether `operation` returns (without throwing) before `duration` passes; it is cancelled
    /// and awaited otherwise.
    public static func completes(within duration: Duration, _ operation: @escaping @Sendable () async throws -> Void) async -> Bool {
        do {
            return try await race(duration) { try await operation() } != nil
        } catch {
            return false
        }
    }
}
