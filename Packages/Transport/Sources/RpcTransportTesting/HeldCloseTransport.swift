public import RpcTransport
import Synchronization

/// A transport around another whose close, once begun, can wait until the test lets it go: for
/// tests that an owner awaits the close it started. It counts the closes begun and says when
/// one has returned. A cut (``abort(_:)``) lets a waiting close go on, as a cut socket ends its
/// close.
///
/// ```swift
/// let held = HeldCloseTransport(end, holding: true)
/// // … something starts a close of `held` …
/// try await waitUntil("the close to begin") { held.closesStarted == 1 }
/// held.release()
/// ```
public final class HeldCloseTransport: MessageTransport {
    private struct Gate {
        var started = 0
        var finished = false
        var open: Bool
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The transport every call goes on to.
    public let inner: any MessageTransport
    private let gate: Mutex<Gate>

    /// Wraps `inner`; with `holding`, a close waits for ``release()`` before it goes on.
    public init(_ inner: any MessageTransport, holding: Bool = true) {
        self.inner = inner
        self.gate = Mutex(Gate(open: !holding))
    }

    /// How many closes have begun.
    public var closesStarted: Int { gate.withLock { $0.started } }

    /// Whether a close has returned.
    public var closeFinished: Bool { gate.withLock { $0.finished } }

    /// Lets the closes that wait, and those to come, go on.
    public func release() {
        let waiters = gate.withLock { gate in
            gate.open = true
            defer { gate.waiters = [] }
            return gate.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The inner transport's state.
    public var state: TransportState { inner.state }

    /// Starts the inner transport.
    public func start(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        inner.start(handler)
    }

    /// Enqueues on the inner transport.
    public func enqueue(_ message: TransportMessage) throws(TransportError) {
        try inner.enqueue(message)
    }

    /// Sends on the inner transport.
    public func send(_ message: TransportMessage) async throws(TransportError) {
        try await inner.send(message)
    }

    /// Counts the close, waits until released (when holding), then closes the inner transport.
    public func close(code: CloseCode, reason: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = gate.withLock { gate -> Bool in
                gate.started += 1
                if !gate.open { gate.waiters.append(continuation) }
                return gate.open
            }
            if open { continuation.resume() }
        }
        await inner.close(code: code, reason: reason)
        gate.withLock { $0.finished = true }
    }

    /// Cuts the inner transport, which also lets a waiting close go on.
    public func abort(_ error: TransportError) async {
        await inner.abort(error)
        release()
    }

    /// The inner transport's state updates.
    public func stateUpdates() -> AsyncStream<TransportState> {
        inner.stateUpdates()
    }

    /// Defers to the inner transport's end of its inbound burst.
    public func afterInboundBurst(_ body: @escaping @Sendable () -> Void) {
        inner.afterInboundBurst(body)
    }
}
