/// Runs an operation with a time limit.
enum Deadline {
    /// Runs `operation`, unless `limit` passes first: then runs `onTimeout` (which should make
    /// the operation end, e.g. by closing its connection), cancels the operation and returns
    /// `nil` once it has ended.
    static func run<Value: Sendable>(
        _ limit: Duration,
        _ operation: @escaping @Sendable () async -> Value,
        onTimeout: @escaping @Sendable () async -> Void
    ) async -> Value? {
        await withTaskGroup(of: Value?.self) { group in
            group.addTask { await operation() }
            group.addTask {
                do {
                    try await Task.sleep(for: limit)
                } catch {
                    return nil
                }
                return nil
            }
            let first = await group.next() ?? nil
            if first == nil {
                await onTimeout()
            }
            group.cancelAll()
            return first
        }
    }

    /// `0.5 seconds`, `30 seconds`, `1 second`.
    static func text(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let number = seconds == seconds.rounded() ? String(Int64(seconds)) : String(seconds)
        return number + (seconds == 1 ? " second" : " seconds")
    }
}
