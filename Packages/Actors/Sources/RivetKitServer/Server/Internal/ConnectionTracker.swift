import Synchronization

/// What one realtime connection has going: whether its frames are still read, whether it has
/// closed, whether something asked for it to be closed, and how many of its actions are waiting
/// or running (at most `limit`, holding at most `byteLimit` bytes of frames). Serving the
/// connection closes it when asked (``next()``) and ends once it has closed and its last action
/// has answered.
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

    /// What serving the connection does next.
    enum Step: Equatable {
        /// Close the connection with RivetKit's reason for the error.
        case close(ActorError)
        /// Nothing: the connection has closed and its last action has answered.
        case finished
    }

    private struct State {
        var inFlight = 0
        var inFlightBytes = 0
        var reading = true
        var closed = false
        /// Set by the first ``ConnectionTracker/requestClose(_:)``: later requests change nothing.
        var closeRequested = false
        /// A close asked for that serving has not taken yet.
        var pendingClose: ActorError?
        var waiter: CheckedContinuation<Step, Never>?

        var isDone: Bool { closed && inFlight == 0 }

        mutating func takeWaiterIfDone() -> CheckedContinuation<Step, Never>? {
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
        let waiter = state.withLock { state -> CheckedContinuation<Step, Never>? in
            state.inFlight -= 1
            state.inFlightBytes = max(state.inFlightBytes - bytes, 0)
            return state.takeWaiterIfDone()
        }
        waiter?.resume(returning: .finished)
    }

    /// Ignores the frames that follow (the connection is being closed).
    func stopReading() {
        state.withLock { $0.reading = false }
    }

    /// Asks for the connection to be closed with RivetKit's reason for `error`, without waiting:
    /// the task serving the connection closes it (see ``next()``). Only the first request
    /// counts; one made after the connection closed does nothing.
    func requestClose(_ error: ActorError) {
        let waiter = state.withLock { state -> CheckedContinuation<Step, Never>? in
            guard !state.closeRequested, !state.closed else { return nil }
            state.closeRequested = true
            guard let waiter = state.waiter else {
                state.pendingClose = error
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: .close(error))
    }

    /// Records that the connection closed.
    func close() {
        let waiter = state.withLock { state -> CheckedContinuation<Step, Never>? in
            state.closed = true
            state.pendingClose = nil
            return state.takeWaiterIfDone()
        }
        waiter?.resume(returning: .finished)
    }

    /// Returns what serving the connection does next: a close asked for with
    /// ``requestClose(_:)``, or, once the connection has closed and no action of it is in
    /// flight, ``Step/finished``. One task at a time waits here (the one serving the connection).
    func next() async -> Step {
        await withCheckedContinuation { (continuation: CheckedContinuation<Step, Never>) in
            let step = state.withLock { state -> Step? in
                if let error = state.pendingClose {
                    state.pendingClose = nil
                    return .close(error)
                }
                guard !state.isDone else { return .finished }
                state.waiter = continuation
                return nil
            }
            if let step { continuation.resume(returning: step) }
        }
    }
}
