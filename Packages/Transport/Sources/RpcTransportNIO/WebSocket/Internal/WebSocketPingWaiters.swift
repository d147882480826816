import RpcTransport
import Synchronization

/// The tasks waiting in ``WebSocketTransport/ping()`` for a pong: any pong answers all of
/// them, and the end of the connection fails them. Any thread may touch it.
final class WebSocketPingWaiters: Sendable {
    private struct State {
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var nextID: UInt64 = 0
        var ended: TransportError?
    }

    private let state = Mutex(State())

    /// A new waiter's id.
    func nextID() -> UInt64 {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    /// Adds a waiter; fails it at once when the connection has ended.
    func add(_ id: UInt64, _ continuation: CheckedContinuation<Void, any Error>) -> Bool {
        let ended = state.withLock { state -> TransportError? in
            if let ended = state.ended { return ended }
            state.waiters[id] = continuation
            return nil
        }
        guard let ended else { return true }
        continuation.resume(throwing: ended)
        return false
    }

    /// Fails the waiter with `id` (its task was cancelled).
    func cancel(_ id: UInt64) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.resume(throwing: TransportError(code: .cancelled, message: "ping was cancelled"))
    }

    /// A pong arrived: every waiter is answered.
    func answerAll() {
        let waiters = state.withLock { state in
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The connection ended: every waiter, and every later one, fails with `error`.
    func end(_ error: TransportError) {
        let waiters = state.withLock { state in
            state.ended = error
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(throwing: error) }
    }
}
