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
        let watched = HeldCloseTransport(server)
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
        // The close is held: serving that did not await it would return with it unfinished.
        try await waitUntil("the server's close to begin") { watched.closesStarted == 1 }
        watched.release()
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
