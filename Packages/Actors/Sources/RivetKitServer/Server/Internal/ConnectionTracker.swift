import Synchronization

/// What one realtime connection has going: whether its frames are still read, whether it has
/// closed, and how many of its actions are waiting or running (at most `limit`, holding at most
/// `byteLimit` bytes of frames). Serving the connection ends once it has closed and its last
/// action has answered.
final class ConnectionTracker: Sendable {
    /// The most actions the connection may have waiting or running.
    let limit: Int
    /// The most bytes of action frames the connection may have waiting or running.
    let byteLimit: Int

    /// Whether an action was admitted, and why not.
    enum Admission {
        case admitted
        case tooMany
        case tooManyBytes
    }

    private struct State {
        var inFlight = 0
        var inFlightBytes = 0
        var reading = true
        var closed = false
        var waiter: CheckedContinuation<Void, Never>?

        var isDone: Bool { closed && inFlight == 0 }

        mutating func takeWaiterIfDone() -> CheckedContinuation<Void, Never>? {
            guard isDone else { return nil }
            defer { waiter = nil }
            return waiter
        }
    }

    private let state = Mutex(State())

    init(limit: Int, byteLimit: Int) {
        self.limit = limit
        self.byteLimit = byteLimit
    }

    /// Whether frames are still handled (not after a frame that closed the connection).
    var isReading: Bool {
        state.withLock { $0.reading && !$0.closed }
    }

    /// Counts one more action of `bytes` in flight, unless the connection has `limit` already
    /// or the bytes would pass `byteLimit` (one action alone is always admitted: its frame is
    /// within the message limit already).
    func admit(bytes: Int) -> Admission {
        state.withLock { state in
            guard state.inFlight < limit else { return .tooMany }
            let (total, overflow) = state.inFlightBytes.addingReportingOverflow(bytes)
            guard state.inFlight == 0 || (!overflow && total <= byteLimit) else { return .tooManyBytes }
            state.inFlight += 1
            state.inFlightBytes = overflow ? .max : total
            return .admitted
        }
    }

    /// Counts one action of `bytes` fewer in flight.
    func release(bytes: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.inFlight -= 1
            state.inFlightBytes = max(state.inFlightBytes - bytes, 0)
            return state.takeWaiterIfDone()
        }
        waiter?.resume()
    }

    /// Ignores the frames that follow (the connection is being closed).
    func stopReading() {
        state.withLock { $0.reading = false }
    }

    /// Records that the connection closed.
    func close() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.closed = true
            return state.takeWaiterIfDone()
        }
        waiter?.resume()
    }

    /// Returns once the connection has closed and no action of it is in flight.
    func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                guard !state.isDone else { return true }
                state.waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
}
