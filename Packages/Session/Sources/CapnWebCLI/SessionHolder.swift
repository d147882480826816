import Synchronization
internal import CapnWeb

/// The session of a `capnweb call` in progress, so that it is closed within the command's
/// deadline however the call ends: the close handshake is awaited only while time is left, then
/// the connection is cut.
final class SessionHolder: Sendable {
    private struct State {
        var session: RpcSession<Any>?
        /// Set by ``close(by:)``: the deadline of that close, applied to a session held later.
        var closedBy: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    /// Keeps `session`; closes it (by the deadline given) when ``close(by:)`` came first.
    func hold(_ session: RpcSession<Any>) async {
        let closedBy = state.withLock { state -> ContinuousClock.Instant? in
            if state.closedBy == nil { state.session = session }
            return state.closedBy
        }
        if let closedBy {
            await session.close(within: Deadline.remaining(until: closedBy))
        }
    }

    /// Closes the held session, if any, and any session held later: with a close handshake
    /// while `deadline` has not passed, cutting the connection once it has (at once when it
    /// already has).
    func close(by deadline: ContinuousClock.Instant) async {
        let held = state.withLock { state -> RpcSession<Any>? in
            state.closedBy = min(state.closedBy ?? deadline, deadline)
            defer { state.session = nil }
            return state.session
        }
        await held?.close(within: Deadline.remaining(until: deadline))
    }
}
