import RpcTransport
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

    /// How the server closes the connection.
    enum Close: Equatable, Sendable {
        /// 1011 with RivetKit's reason for the error, `group.code`.
        case error(ActorError)
        /// 1000 with this reason, without an error (the actor disconnected it, or was destroyed).
        case normal(reason: String)
    }

    /// What serving the connection does next.
    enum Step: Equatable {
        /// Close the connection as told.
        case close(Close)
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
        var pendingClose: Close?
        var waiter: CheckedContinuation<Step, Never>?

        var isDone: Bool { closed && inFlight == 0 }

        /// The pending close serving may take now: an error close at once, a normal one once
        /// the connection's actions have answered (its frames are no longer read meanwhile).
        mutating func takeReadyClose() -> Close? {
            guard let close = pendingClose else { return nil }
            if case .normal = close, inFlight > 0 { return nil }
            pendingClose = nil
            return close
        }

        /// The waiter and what to resume it with, when there is something for it.
        mutating func takeWaiterIfReady() -> (CheckedContinuation<Step, Never>, Step)? {
            guard let waiter else { return nil }
            if let close = takeReadyClose() {
                self.waiter = nil
                return (waiter, .close(close))
            }
            guard isDone else { return nil }
            self.waiter = nil
            return (waiter, .finished)
        }
    }

    private let state = Mutex(State())
    /// The server's count of actions in flight, which a graceful shutdown waits for.
    private let serverWork: InFlightWork?

    init(limit: Int, byteLimit: Int, serverWork: InFlightWork? = nil) {
        self.limit = limit
        self.byteLimit = byteLimit
        self.serverWork = serverWork
    }

    /// Whether frames are still handled (not after a frame that closed the connection).
    var isReading: Bool {
        state.withLock { $0.reading && !$0.closed }
    }

    /// Counts one more action of `bytes` in flight, unless the connection has `limit` already
    /// or the bytes would pass `byteLimit` (one action alone is always admitted: its frame is
    /// within the message limit already).
    func admit(bytes: Int) -> Admission {
        let admission = state.withLock { state -> Admission in
            guard state.inFlight < limit else { return .tooMany }
            let (total, overflow) = state.inFlightBytes.addingReportingOverflow(bytes)
            guard state.inFlight == 0 || (!overflow && total <= byteLimit) else { return .tooManyBytes }
            state.inFlight += 1
            state.inFlightBytes = overflow ? .max : total
            return .admitted
        }
        if admission == .admitted { serverWork?.begin() }
        return admission
    }

    /// Counts one action of `bytes` fewer in flight.
    func release(bytes: Int) {
        let ready = state.withLock { state -> (CheckedContinuation<Step, Never>, Step)? in
            state.inFlight -= 1
            state.inFlightBytes = max(state.inFlightBytes - bytes, 0)
            return state.takeWaiterIfReady()
        }
        serverWork?.end()
        if let (waiter, step) = ready { waiter.resume(returning: step) }
    }

    /// Ignores the frames that follow (the connection is being closed).
    func stopReading() {
        state.withLock { $0.reading = false }
    }

    /// Asks for the connection to be closed with RivetKit's reason for `error`, without waiting:
    /// the task serving the connection closes it (see ``next()``). Only the first request
    /// counts; one made after the connection closed does nothing.
    func requestClose(_ error: ActorError) {
        requestClose(.error(error))
    }

    /// Asks for the connection to be closed as `close` says, as ``requestClose(_:)-(ActorError)``.
    /// A normal close (the actor disconnected the connection, or was destroyed) stops reading
    /// its frames at once and closes once the actions in flight have answered, so that the
    /// action that asked for it is answered first.
    func requestClose(_ close: Close) {
        let ready = state.withLock { state -> (CheckedContinuation<Step, Never>, Step)? in
            guard !state.closeRequested, !state.closed else { return nil }
            state.closeRequested = true
            if case .normal = close { state.reading = false }
            state.pendingClose = close
            return state.takeWaiterIfReady()
        }
        if let (waiter, step) = ready { waiter.resume(returning: step) }
    }

    /// Records that the connection closed.
    func close() {
        let ready = state.withLock { state -> (CheckedContinuation<Step, Never>, Step)? in
            state.closed = true
            state.pendingClose = nil
            return state.takeWaiterIfReady()
        }
        if let (waiter, step) = ready { waiter.resume(returning: step) }
    }

    /// Returns what serving the connection does next: a close asked for with
    /// ``requestClose(_:)-(Close)`` (a normal one once no action is in flight), or, once the connection has closed and no action of it is in
    /// flight, ``Step/finished``. One task at a time waits here (the one serving the connection).
    func next() async -> Step {
        await withCheckedContinuation { (continuation: CheckedContinuation<Step, Never>) in
            let step = state.withLock { state -> Step? in
                if let close = state.takeReadyClose() { return .close(close) }
                guard !state.isDone else { return .finished }
                state.waiter = continuation
                return nil
            }
            if let step { continuation.resume(returning: step) }
        }
    }
}
