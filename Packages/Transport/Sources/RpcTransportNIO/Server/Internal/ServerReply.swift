import NIOCore
import RpcTransport
import Synchronization

/// The answer to a piece of server work done in Swift concurrency (a batch, an upgrade
/// decision), completed exactly once. When the work is dropped unanswered, because the server
/// stopped before running it, the promise fails with ``TransportError/Code/serverShutdown``.
final class ServerReply<Value: Sendable>: Sendable {
    private let promise: EventLoopPromise<Value>
    private let completed = Mutex(false)

    init(promise: EventLoopPromise<Value>) {
        self.promise = promise
    }

    /// Completes with `result`; later calls do nothing.
    func complete(_ result: Result<Value, any Error>) {
        let first = completed.withLock { completed -> Bool in
            defer { completed = true }
            return !completed
        }
        if first {
            promise.completeWith(result)
        }
    }

    deinit {
        if !completed.withLock({ $0 }) {
            promise.fail(TransportError(code: .serverShutdown, message: "the server is shutting down"))
        }
    }
}
