import Synchronization
import RpcTransport
import RpcTransportTesting

/// An in-memory end whose burst of inbound messages lasts until the test ends it: the work
/// ``afterInboundBurst(_:)`` defers waits for ``endBurst()``, as on a WebSocket it waits until
/// the transport has written what the burst produced.
final class HeldBurstTransport: MessageTransport {
    let inner: InMemoryTransport
    private let held = Mutex<[@Sendable () -> Void]>([])

    init(_ inner: InMemoryTransport) {
        self.inner = inner
    }

    var state: TransportState { inner.state }

    func start(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        inner.start(handler)
    }

    func enqueue(_ message: TransportMessage) throws(TransportError) {
        try inner.enqueue(message)
    }

    func send(_ message: TransportMessage) async throws(TransportError) {
        try await inner.send(message)
    }

    func close(code: CloseCode, reason: String) async {
        await inner.close(code: code, reason: reason)
    }

    func stateUpdates() -> AsyncStream<TransportState> {
        inner.stateUpdates()
    }

    func afterInboundBurst(_ body: @escaping @Sendable () -> Void) {
        held.withLock { $0.append(body) }
    }

    /// Ends the burst: runs the work deferred to its end.
    func endBurst() {
        let bodies = held.withLock { held in
            defer { held = [] }
            return held
        }
        for body in bodies { body() }
    }
}
