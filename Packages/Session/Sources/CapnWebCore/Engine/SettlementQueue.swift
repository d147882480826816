@_spi(RpcImplementation) internal import RpcTransport

/// Delivers promise settlements one after another on each thread, instead of one inside another.
///
/// Delivering a settlement notifies listeners, which may settle further promises (the links of a
/// pipelined chain), whose listeners settle more. Done recursively, a chain of a million links,
/// which one peer can build with a single batch of messages, would need a million stack frames.
/// Here a settlement made while another is being delivered on the same thread waits in the
/// thread's queue, and the outermost ``settle(_:with:)`` delivers the queue in order until it is
/// empty: the stack stays one link deep, and every settlement is still delivered before the
/// outermost call returns.
final class SettlementQueue {
    /// Settlements waiting for delivery; a delivered slot is emptied at once, so the queue does
    /// not keep delivered promises alive.
    private var pending: [(promise: LocalPromiseHook, settlement: Settlement)?] = []
    /// The next slot of ``pending`` to deliver.
    private var next = 0
    /// Whether a delivery is running on this thread.
    private var delivering = false

    /// Each thread's queue, made on its first settlement.
    private static let perThread = ThreadSpecificReference<SettlementQueue>()

    /// How many delivered slots a drained queue keeps room for; a longer burst gives its
    /// memory back.
    private static let keptCapacity = 1024

    /// Settles `promise` with `settlement`: at once, or, during another delivery on this thread,
    /// right after it.
    static func settle(_ promise: LocalPromiseHook, with settlement: Settlement) {
        let queue: SettlementQueue
        if let existing = perThread.currentValue {
            queue = existing
        } else {
            queue = SettlementQueue()
            perThread.set(queue)
        }
        if queue.delivering {
            queue.pending.append((promise, settlement))
            return
        }
        queue.delivering = true
        promise.deliver(settlement)
        queue.drain()
        queue.delivering = false
    }

    /// Delivers the waiting settlements in order, including those they add, until none is left.
    private func drain() {
        while next < pending.count {
            let item = pending[next]
            pending[next] = nil
            next += 1
            if let item { item.promise.deliver(item.settlement) }
        }
        if pending.capacity > Self.keptCapacity {
            pending = []
        } else {
            pending.removeAll(keepingCapacity: true)
        }
        next = 0
    }
}
