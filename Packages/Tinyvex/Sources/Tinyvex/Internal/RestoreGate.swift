import Synchronization

/// Holds mutations and actions back while the client is not connected or is still restoring a
/// new connection (token, then every live query resubscribed), so a call never overtakes the
/// resubscriptions and a mutation's answer always follows its effect on the client's queries.
final class RestoreGate: Sendable {
    private struct State {
        var open = false
        /// Bumped by every close, so a restore of an older connection cannot open the gate.
        var epoch: UInt64 = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Closes the gate (the connection is down) and returns the new epoch.
    @discardableResult
    func close() -> UInt64 {
        state.withLock { state in
            state.open = false
            state.epoch += 1
            return state.epoch
        }
    }

    /// The epoch a restore starting now belongs to.
    var epoch: UInt64 { state.withLock { $0.epoch } }

    /// Opens the gate when no close happened since `epoch`; `nil` opens it unconditionally.
    func open(epoch: UInt64?) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if let epoch, epoch != state.epoch { return [] }
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the gate is open.
    func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if open { continuation.resume() }
        }
    }
}
