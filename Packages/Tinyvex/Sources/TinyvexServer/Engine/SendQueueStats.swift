import Synchronization

/// The most items and bytes any connection's send queue has held: what the tests of the
/// queue's bounds read.
final class SendQueueStats: Sendable {
    private let peak = Mutex((items: 0, bytes: 0))

    /// Records a queue's size after a push.
    func record(items: Int, bytes: Int) {
        peak.withLock { peak in
            if items > peak.items { peak.items = items }
            if bytes > peak.bytes { peak.bytes = bytes }
        }
    }

    /// The largest sizes seen.
    var largest: (items: Int, bytes: Int) { peak.withLock { $0 } }
}
