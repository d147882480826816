internal import CapnWeb

extension Deadline {
    /// Runs `operation`, unless `deadline` passes first: then runs `onTimeout` (which should make
    /// the operation end, e.g. by cutting its connection), cancels the operation, awaits it and
    /// returns `nil`.
    static func run<Value: Sendable>(
        until deadline: ContinuousClock.Instant,
        _ operation: @escaping @Sendable () async -> Value,
        onTimeout: @escaping @Sendable () async -> Void
    ) async -> Value? {
        // The operation does not throw, and a cancelled race ends with `nil`: a timeout.
        (try? await race(remaining(until: deadline), onTimeout: onTimeout) { await operation() }) ?? nil
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
