import Synchronization

/// Lets a header change reconnect without cutting calls: while it is paused, new calls wait
/// before they are sent, and the pause begins once the calls already sent have finished.
///
/// A call is admitted (``tryEnter()``) just before it is sent and leaves (``leave()``) when its
/// answer, failure or timeout has come; ``pause()`` closes the gate and returns when no
/// admitted call is left; ``resume()`` opens it again.
final class CallGate: Sendable {
    private struct State {
        var admitted = 0
        var pauses = 0
        var nextWaiter: UInt64 = 0
        var openWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Creates an open gate.
    init() {}

    /// Admits a call when the gate is open; `false` when paused (wait with ``waitUntilOpen()``
    /// and try again).
    func tryEnter() -> Bool {
        state.withLock { state in
            guard state.pauses == 0 else { return false }
            state.admitted += 1
            return true
        }
    }

    /// An admitted call is over.
    func leave() {
        let drained = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.admitted -= 1
            guard state.admitted == 0 else { return [] }
            defer { state.drainWaiters = [] }
            return state.drainWaiters
        }
        for waiter in drained { waiter.resume() }
    }

    /// Waits until the gate is open, or the task is cancelled.
    func waitUntilOpen() async {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let open = state.withLock { state -> Bool in
                    if state.pauses == 0 || Task.isCancelled { return true }
                    state.openWaiters[id] = continuation
                    return false
                }
                if open { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.openWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Closes the gate and returns once every admitted call is over.
    func pause() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let drained = state.withLock { state -> Bool in
                state.pauses += 1
                if state.admitted == 0 { return true }
                state.drainWaiters.append(continuation)
                return false
            }
            if drained { continuation.resume() }
        }
    }

    /// Ends one ``pause()``; the gate opens when no pause is left.
    func resume() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.pauses -= 1
            guard state.pauses == 0 else { return [] }
            defer { state.openWaiters = [:] }
            return Array(state.openWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}
