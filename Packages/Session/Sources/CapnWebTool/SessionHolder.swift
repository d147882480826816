import Synchronization
internal import CapnWeb

/// The session of a `capnweb call` in progress, so that a timeout can close it and fail
/// whatever still waits on it.
final class SessionHolder: Sendable {
    private let session = Mutex<RpcSession<Any>?>(nil)
    private let closed = Mutex(false)

    /// Keeps `session`; closes it at once when ``close()`` came first.
    func hold(_ session: RpcSession<Any>) async {
        let closeNow = closed.withLock { closed in
            if !closed { self.session.withLock { $0 = session } }
            return closed
        }
        if closeNow { await session.close() }
    }

    /// Closes the held session, if any, and any session held later.
    func close() async {
        let held = closed.withLock { closed in
            closed = true
            return self.session.withLock { session in
                defer { session = nil }
                return session
            }
        }
        await held?.close()
    }
}
