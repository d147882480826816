import Synchronization

/// Counts the messages the receiving connections got in one round and wakes the driver when
/// every connection has its message.
final class FanoutCounter: Sendable {
    private struct State {
        var expected = 0
        var received = 0
        var waiter: CheckedContinuation<ContinuousClock.Instant, Never>?
        var finishedAt: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    /// Every message received, across rounds.
    private let all = Atomic<Int>(0)

    /// How many messages were received since the counter was made.
    var total: Int { all.load(ordering: .relaxed) }

    /// Starts a round that ends after `expected` messages.
    func arm(_ expected: Int) {
        state.withLock { $0 = State(expected: expected) }
    }

    func received() {
        all.add(1, ordering: .relaxed)
        let resumed = state.withLock { state -> (CheckedContinuation<ContinuousClock.Instant, Never>, ContinuousClock.Instant)? in
            state.received += 1
            guard state.received == state.expected else { return nil }
            let now = ContinuousClock.now
            state.finishedAt = now
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, now)
        }
        if let (waiter, now) = resumed { waiter.resume(returning: now) }
    }

    /// When the last expected message arrived.
    func finished() async -> ContinuousClock.Instant {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> ContinuousClock.Instant? in
                if let finishedAt = state.finishedAt { return finishedAt }
                state.waiter = continuation
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }
}
