import RpcTransport

/// The call timeout of one session, for every awaited call at once, on one
/// ``DeadlineTimer``: each awaited call arms its waiter, which the timer fails
/// with ``RpcError/timeout`` when no answer came first. One timeout for all keeps the
/// deadlines in order, so arming and finishing cost no hashing and no allocation; a call fails
/// between `timeout` and a few milliseconds after it.
final class CallDeadlines: Sendable {
    /// How long an awaited call may take.
    let timeout: Duration
    private let timer = DeadlineTimer()

    init(timeout: Duration) {
        self.timeout = timeout
    }

    /// How many awaited calls have their deadline armed.
    var waitingCount: Int { timer.armedCount }

    /// How many deadlines the timer stores, finished ones not yet shed included.
    var storedCount: Int { timer.storedCount }

    /// Starts the clock for `waiter`; returns the registration to pass to ``finished(_:)``, or
    /// `nil` when the session has ended (the waiter is then settled by the session's end).
    func register(_ waiter: SettlementWaiter) -> UInt64? {
        timer.arm(after: timeout, waiter)
    }

    /// The call registered as `id` has its answer (or was cancelled).
    func finished(_ id: UInt64) {
        timer.disarm(id)
    }

    /// Stops the timer; calls still waiting are settled by the session's end.
    func close() {
        timer.close()
    }
}

extension SettlementWaiter: ExpiringWait {
    /// The session's call timeout passed first: the wait fails with ``RpcError/timeout``.
    func expire() {
        resume(.failure(.failed(.timeout)))
    }
}
