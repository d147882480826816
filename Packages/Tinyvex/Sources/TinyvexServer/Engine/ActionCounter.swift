import Synchronization

/// The actions one connection has running, bounded by `limit`
/// (``TinyvexServerConfiguration/maxPendingActionsPerConnection``).
final class ActionCounter: Sendable {
    let limit: Int
    private let running = Mutex(0)

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Counts one more action; `false` (counting nothing) when `limit` are running.
    func begin() -> Bool {
        running.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    /// One action ended.
    func end() {
        running.withLock { count in count = max(0, count - 1) }
    }

    /// How many actions run now.
    var count: Int { running.withLock { $0 } }
}
