import Synchronization

/// Remembers the `retryAfter` of the last `RateLimitExceeded` the server sent, read from the
/// server's frame trace, so the demo can print it.
final class RetryAfterLog: Sendable {
    private let value = Mutex<String?>(nil)

    /// The last `retryAfter` seen, as sent (seconds).
    var last: String? {
        value.withLock { $0 }
    }

    /// Looks for `"retryAfter":<number>` in a `reject` frame.
    func record(frame: String) {
        guard frame.hasPrefix("[\"reject\""), frame.contains("RateLimitExceeded"),
            let key = frame.firstRange(of: "\"retryAfter\":")
        else { return }
        let number = frame[key.upperBound...].prefix { $0.isNumber || $0 == "." }
        if !number.isEmpty {
            value.withLock { $0 = String(number) }
        }
    }
}
