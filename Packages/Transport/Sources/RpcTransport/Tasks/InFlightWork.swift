import Synchronization

/// A count of the calls a server is answering right now, for a graceful shutdown that waits
/// until they have finished before it closes the connections.
///
/// A protocol server calls ``begin()`` when a call arrives and ``end()`` once its answer is
/// written; a shutdown awaits ``waitUntilIdle()`` within its drain timeout.
///
/// ```swift
/// let work = InFlightWork()
/// work.begin()
/// defer { work.end() }
/// ```
public final class InFlightWork: Sendable {
    private struct State {
        var count = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Creates a count at zero.
    public init() {}

    /// How many calls are in flight.
    public var count: Int { state.withLock { $0.count } }

    /// Counts one more call in flight.
    public func begin() {
        state.withLock { $0.count += 1 }
    }

    /// Counts one call fewer; wakes the waiters when none is left. An `end()` without its
    /// `begin()` leaves the count at zero.
    public func end() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count = max(state.count - 1, 0)
            guard state.count == 0 else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no call is in flight (at once when none is), or when the task is
    /// cancelled; race it against a deadline (``Deadline/race(_:onTimeout:_:)``).
    public func waitUntilIdle() async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let idle = state.withLock { state -> Bool in
                    guard state.count > 0, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if idle { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
