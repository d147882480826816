import Foundation

/// Ends the process when an operation takes longer than its limit: a stalled connection would
/// otherwise hang the benchmark forever.
public enum Watchdog {
    /// Runs `operation`; if it has not returned within `limit`, prints what was running and
    /// exits with status 1.
    public static func run<Value: Sendable>(
        _ what: String,
        limit: Duration,
        _ operation: @Sendable () async throws -> Value
    ) async throws -> Value {
        let program = ProcessInfo.processInfo.processName
        let watchdog = Task.detached {
            try await Task.sleep(for: limit)
            FileHandle.standardError.write(Data("\(program): \(what) did not finish within \(limit)\n".utf8))
            exit(1)
        }
        defer { watchdog.cancel() }
        return try await operation()
    }
}
