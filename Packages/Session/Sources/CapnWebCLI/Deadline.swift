/// Runs an operation with a time limit.
enum Deadline {
    /// Runs `operation`, unless `deadline` passes first: then runs `onTimeout` (which should make
    /// the operation end, e.g. by cutting its connection), cancels the operation and returns
    /// `nil` without waiting for it, so that nothing the operation still waits on (a connect, a
    /// close handshake) can hold the caller past the deadline.
    static func run<Value: Sendable>(
        until deadline: ContinuousClock.Instant,
        _ operation: @escaping @Sendable () async -> Value,
        onTimeout: @escaping @Sendable () async -> Void
    ) async -> Value? {
        let (first, continuation) = AsyncStream<Value?>.makeStream(bufferingPolicy: .bufferingOldest(1))
        let work = Task {
            continuation.yield(await operation())
        }
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            continuation.yield(nil)
        }
        var winner: Value?? = nil
        for await value in first {
            winner = value
            break
        }
        continuation.finish()
        timer.cancel()
        guard let value = winner ?? nil else {
            await onTimeout()
            work.cancel()
            return nil
        }
        return value
    }

    /// How long is left until `deadline`; zero once it has passed.
    static func remaining(until deadline: ContinuousClock.Instant) -> Duration {
        max(.zero, deadline - ContinuousClock.now)
    }

    /// `0.5 seconds`, `30 seconds`, `1 second`.
    static func text(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let number = seconds == seconds.rounded() ? String(Int64(seconds)) : String(seconds)
        return number + (seconds == 1 ? " second" : " seconds")
    }
}
