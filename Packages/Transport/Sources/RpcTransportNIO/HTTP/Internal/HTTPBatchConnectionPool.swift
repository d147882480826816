import NIOCore
import RpcTransport
import Synchronization

/// The idle keep-alive connections of a batch client, for reuse by later requests.
final class HTTPBatchConnectionPool: Sendable {
    private struct Idle {
        var connection: HTTPBatchConnection
        var since: ContinuousClock.Instant
    }

    private struct State {
        var idle: [Idle] = []
        var closed = false
    }

    private let state = Mutex(State())
    private let maxIdle: Int
    private let idleTimeout: Duration

    init(maxIdle: Int, idleTimeout: Duration) {
        self.maxIdle = max(maxIdle, 0)
        self.idleTimeout = idleTimeout
    }

    /// An idle connection that is still open and fresh, if there is one.
    func checkout() throws(TransportError) -> HTTPBatchConnection? {
        let now = ContinuousClock.now
        let (found, stale) = try state.withLock {
            state throws(TransportError) -> (HTTPBatchConnection?, [HTTPBatchConnection]) in
            guard !state.closed else {
                throw TransportError(code: .closed, message: "the batch client is closed")
            }
            var stale: [HTTPBatchConnection] = []
            while let entry = state.idle.popLast() {
                if entry.connection.isActive, now - entry.since < idleTimeout {
                    return (entry.connection, stale)
                }
                stale.append(entry.connection)
            }
            return (nil, stale)
        }
        for connection in stale {
            connection.close()
        }
        return found
    }

    /// Keeps a connection for reuse, or closes it when the pool is full or closed.
    func checkin(_ connection: HTTPBatchConnection) {
        let kept = state.withLock { state -> Bool in
            guard !state.closed, state.idle.count < maxIdle, connection.isActive else { return false }
            state.idle.append(Idle(connection: connection, since: .now))
            return true
        }
        if !kept {
            connection.close()
        }
    }

    /// Closes every idle connection and refuses further checkouts.
    func close() async {
        let idle = state.withLock { state -> [HTTPBatchConnection] in
            state.closed = true
            defer { state.idle = [] }
            return state.idle.map(\.connection)
        }
        for connection in idle {
            connection.close()
        }
        for connection in idle {
            try? await connection.channel.closeFuture.get()
        }
    }
}
