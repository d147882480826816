import RpcTransport
import RpcTransportInMemory
import RpcTesting
import Testing

@Suite("ReconnectingConnection.abandon (in-memory transport)")
struct AbandonedCloseTests {
    @Test("the close abandon starts belongs to the connection: a later close waits for it")
    func closeAwaitsTheAbandonedClose() async throws {
        let peer = ScriptedPeer()
        let gate = Gate()
        let log = Collected<String>()
        let connection = ReconnectingConnection(
            configuration: quickConfiguration(),
            factory: { headers in HeldCloseTransport(try await peer.factory(headers), gate: gate, log: log) },
            handler: .messages { _ in })
        try await connection.start()
        connection.abandon()
        try await waitUntil("the abandoned transport's close to begin") { log.all == ["close began"] }
        let closing = Task {
            await connection.close()
            return log.all
        }
        gate.open()
        #expect(await closing.value == ["close began", "close ended"])
    }
}

/// A transport whose close, once begun, waits for a gate before it goes on; it logs both steps.
private final class HeldCloseTransport: MessageTransport {
    private let inner: any MessageTransport
    private let gate: Gate
    private let log: Collected<String>

    init(_ inner: any MessageTransport, gate: Gate, log: Collected<String>) {
        self.inner = inner
        self.gate = gate
        self.log = log
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
        log.append("close began")
        await gate.wait()
        await inner.close(code: code, reason: reason)
        log.append("close ended")
    }

    func abort(_ error: TransportError) async {
        await inner.abort(error)
    }

    func stateUpdates() -> AsyncStream<TransportState> {
        inner.stateUpdates()
    }
}
