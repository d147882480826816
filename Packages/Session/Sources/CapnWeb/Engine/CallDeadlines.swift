import Synchronization

/// The call timeout of one session, for every awaited call at once.
///
/// A timer per call would cost two cross-thread hand-offs per call (arming and cancelling it on
/// an event loop). Instead each awaited call registers its waiter here and one sweeper task,
/// running only while calls are waiting, wakes every ``resolution`` and fails the waiters whose
/// deadline has passed. A call therefore fails between `timeout` and `timeout + resolution`
/// after it was awaited.
final class CallDeadlines: Sendable {
    private struct Entry {
        let deadline: ContinuousClock.Instant
        let waiter: SettlementWaiter
    }

    private struct State {
        var pending: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        /// Running while calls are waiting.
        var sweeper: Task<Void, Never>?
        var closed = false
    }

    /// How long an awaited call may take.
    let timeout: Duration
    /// How often the sweeper looks for expired calls: a tenth of the timeout, between 1 ms and
    /// one second.
    let resolution: Duration
    private let state = Mutex(State())

    init(timeout: Duration) {
        self.timeout = timeout
        self.resolution = min(max(timeout / 10, .milliseconds(1)), .seconds(1))
    }

    /// Starts the clock for `waiter`; returns the registration to pass to ``finished(_:)``, or
    /// `nil` when the session has ended (the waiter is then settled by the session's end).
    func register(_ waiter: SettlementWaiter) -> UInt64? {
        let deadline = ContinuousClock.now + timeout
        return state.withLock { state -> UInt64? in
            guard !state.closed else { return nil }
            let id = state.nextID
            state.nextID &+= 1
            state.pending[id] = Entry(deadline: deadline, waiter: waiter)
            if state.sweeper == nil {
                state.sweeper = Task { [self] in await sweep() }
            }
            return id
        }
    }

    /// The call registered as `id` has its answer (or was cancelled).
    func finished(_ id: UInt64) {
        _ = state.withLock { $0.pending.removeValue(forKey: id) }
    }

    /// Stops the sweeper; calls still waiting are settled by the session's end.
    func close() {
        let sweeper = state.withLock { state -> Task<Void, Never>? in
            state.closed = true
            state.pending = [:]
            return state.sweeper
        }
        sweeper?.cancel()
    }

    private func sweep() async {
        while true {
            do {
                try await Task.sleep(for: resolution)
            } catch {
                return
            }
            let now = ContinuousClock.now
            let (expired, done) = state.withLock { state -> ([SettlementWaiter], Bool) in
                var expired: [SettlementWaiter] = []
                let ids = state.pending.compactMap { $0.value.deadline <= now ? $0.key : nil }
                for id in ids {
                    if let entry = state.pending.removeValue(forKey: id) { expired.append(entry.waiter) }
                }
                let done = state.pending.isEmpty || state.closed
                if done { state.sweeper = nil }
                return (expired, done)
            }
            for waiter in expired { waiter.resume(.failure(.failed(.timeout))) }
            if done { return }
        }
    }
}
