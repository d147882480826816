import Foundation
import Synchronization
import RpcTransport
import RpcTransportTesting

/// An in-memory end whose next write, once armed, stops the thread writing until the test lets
/// it go: a flush of the session is then under way for as long as the test needs.
final class HeldWriteTransport: MessageTransport {
    let inner: InMemoryTransport
    private let armed = Atomic<Bool>(false)
    private let holding = Atomic<Int>(0)
    private let written = Atomic<Int>(0)
    private let gate = DispatchSemaphore(value: 0)

    init(_ inner: InMemoryTransport) {
        self.inner = inner
    }

    /// Makes the next write wait for ``release()``.
    func holdNextWrite() {
        armed.store(true, ordering: .sequentiallyConsistent)
    }

    /// How many writes are waiting for ``release()``.
    var held: Int { holding.load(ordering: .sequentiallyConsistent) }

    /// How many messages went through to the peer.
    var writes: Int { written.load(ordering: .sequentiallyConsistent) }

    /// Lets the write that is waiting go on.
    func release() {
        gate.signal()
    }

    var state: TransportState { inner.state }

    func start(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        inner.start(handler)
    }

    func enqueue(_ message: TransportMessage) throws(TransportError) {
        if armed.exchange(false, ordering: .sequentiallyConsistent) {
            holding.add(1, ordering: .sequentiallyConsistent)
            gate.wait()
            holding.subtract(1, ordering: .sequentiallyConsistent)
        }
        try inner.enqueue(message)
        written.add(1, ordering: .sequentiallyConsistent)
    }

    func send(_ message: TransportMessage) async throws(TransportError) {
        try enqueue(message)
    }

    func close(code: CloseCode, reason: String) async {
        await inner.close(code: code, reason: reason)
    }

    func stateUpdates() -> AsyncStream<TransportState> {
        inner.stateUpdates()
    }

    func afterInboundBurst(_ body: @escaping @Sendable () -> Void) {
        inner.afterInboundBurst(body)
    }
}
