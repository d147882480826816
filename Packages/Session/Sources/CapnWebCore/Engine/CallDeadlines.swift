import Synchronization

/// The call timeout of one session, for every awaited call at once.
///
/// A timer per call would cost two cross-thread hand-offs per call (arming and cancelling it on
/// an event loop). Instead each awaited call registers its waiter here and one sweeper task,
/// running only while calls are waiting, wakes every ``resolution`` and fails the waiters whose
/// deadline has passed. A call therefore fails between `timeout` and `timeout + resolution`
/// after it was awaited.
///
/// Every call gets the same timeout and registrations are numbered in the order their
/// deadlines are taken, so the waiters are kept in that order in a queue: registering appends,
/// finishing empties a slot found by its number, and the sweeper takes expired waiters from
/// the front. No key is hashed on the path of a call.
final class CallDeadlines: Sendable {
    private struct Entry {
        let deadline: ContinuousClock.Instant
        /// `nil` once the call has finished or expired.
        var waiter: SettlementWaiter?
    }

    private struct State {
        /// The waiters in registration order, without a waiter where a call has finished. The
        /// slot of registration `id` is `id - firstID` places after `head`.
        var slots: [Entry] = []
        /// Where the live part of `slots` starts: the slots before it are spent.
        var head = 0
        /// The registration number of the slot at `head`.
        var firstID: UInt64 = 0
        /// Running while calls are waiting.
        var sweeper: Task<Void, Never>?
        var closed = false

        /// Whether no call is waiting.
        var isEmpty: Bool { head == slots.count }

        /// Drops finished slots from the front; once spent slots make up most of the storage
        /// (and at least 64 of them, so that calls made one at a time reclaim it once every 64
        /// calls rather than on every call), moves the live ones down so that it does not grow
        /// without bound.
        mutating func trimFront() {
            while head < slots.count, slots[head].waiter == nil {
                head += 1
                firstID &+= 1
            }
            guard head >= 64, head * 2 >= slots.count else { return }
            if head == slots.count {
                slots.removeAll(keepingCapacity: true)
            } else {
                slots.removeFirst(head)
            }
            head = 0
        }
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

    /// How many registrations are kept from the oldest one that has not finished or expired
    /// on (finished ones after it included); zero when no call is waiting.
    var waitingCount: Int {
        state.withLock { $0.slots.count - $0.head }
    }

    /// How many slots are stored, spent ones included.
    var storedCount: Int {
        state.withLock { $0.slots.count }
    }

    /// Starts the clock for `waiter`; returns the registration to pass to ``finished(_:)``, or
    /// `nil` when the session has ended (the waiter is then settled by the session's end).
    func register(_ waiter: SettlementWaiter) -> UInt64? {
        state.withLock { state -> UInt64? in
            guard !state.closed else { return nil }
            // Taken under the lock, so deadlines grow with registration numbers.
            let deadline = ContinuousClock.now + timeout
            let id = state.firstID &+ UInt64(state.slots.count - state.head)
            state.slots.append(Entry(deadline: deadline, waiter: waiter))
            if state.sweeper == nil {
                state.sweeper = Task { [self] in await sweep() }
            }
            return id
        }
    }

    /// The call registered as `id` has its answer (or was cancelled).
    func finished(_ id: UInt64) {
        state.withLock { state in
            // A registration before `firstID` was already taken by the sweeper.
            let offset = id &- state.firstID
            guard offset < UInt64(state.slots.count - state.head) else { return }
            state.slots[state.head + Int(offset)].waiter = nil
            state.trimFront()
        }
    }

    /// Stops the sweeper; calls still waiting are settled by the session's end.
    func close() {
        let sweeper = state.withLock { state -> Task<Void, Never>? in
            state.closed = true
            state.firstID &+= UInt64(state.slots.count - state.head)
            state.slots = []
            state.head = 0
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
                while state.head < state.slots.count {
                    let entry = state.slots[state.head]
                    if let waiter = entry.waiter {
                        guard entry.deadline <= now else { break }
                        expired.append(waiter)
                        state.slots[state.head].waiter = nil
                    }
                    state.trimFront()
                }
                let done = state.isEmpty || state.closed
                if done { state.sweeper = nil }
                return (expired, done)
            }
            for waiter in expired { waiter.resume(.failure(.failed(.timeout))) }
            if done { return }
        }
    }
}
