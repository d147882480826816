import NIOHTTP1
import RivetKit
@testable import RivetKitServer
import RpcDoTesting
import RpcTransportNIO
import Synchronization
import Testing

@Suite("Connections the server closes")
struct ServerCloseTests {
    @Test("Serving a connection closed for a hostile frame returns only once that close has finished")
    func serveAwaitsItsClose() async throws {
        let core = ActorServerCore(
            registry: DemoActors.registry, store: try SQLiteActorStore.inMemory(), configuration: ServerHarness.configuration())
        let (client, server) = InMemoryTransport.makePair()
        let watched = CloseWatchingTransport(server)
        let events = EventLog()
        client.start { event in events.record(event) }
        let uri = "/gateway/counter/connect?rvt-namespace=default&rvt-method=getOrCreate&rvt-key=closing"
        let request = WebSocketUpgradeRequest(
            path: "/gateway/counter/connect", uri: uri, headers: [:], remoteAddress: nil, offeredSubprotocols: ["rivet"])
        let serving = Task {
            await core.serve(watched, request: request)
            return watched.closeFinished
        }
        try await waitUntil("the Init message") { events.messages >= 1 }
        try client.enqueue(.binary([1, 2, 3]))
        #expect(await serving.value, "serving returned before the close it started had finished")
        try await waitUntil("the client's end to close") { events.closure != nil }
        #expect(events.closure?.reason == "message.malformed")
    }
}

/// What one end of a pair received: how many messages, and how it closed.
private final class EventLog: Sendable {
    private let state = Mutex<(messages: Int, closure: TransportClosure?)>((0, nil))

    var messages: Int { state.withLock { $0.messages } }
    var closure: TransportClosure? { state.withLock { $0.closure } }

    func record(_ event: TransportEvent) {
        state.withLock { state in
            switch event {
            case .message: state.messages += 1
            case .closed(let closure): state.closure = closure
            }
        }
    }
}

/// A transport that records when a close of it has returned.
private final class CloseWatchingTransport: MessageTransport {
    let inner: any MessageTransport
    private let finished = Atomic<Bool>(false)

    init(_ inner: any MessageTransport) {
        self.inner = inner
    }

    /// Whether a call of ``close(code:reason:)`` has returned.
    var closeFinished: Bool { finished.load(ordering: .sequentiallyConsistent) }

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
        finished.store(true, ordering: .sequentiallyConsistent)
    }

    func abort(_ error: TransportError) async {
        await inner.abort(error)
    }

    func stateUpdates() -> AsyncStream<TransportState> {
        inner.stateUpdates()
    }

    func afterInboundBurst(_ body: @escaping @Sendable () -> Void) {
        inner.afterInboundBurst(body)
    }
}
