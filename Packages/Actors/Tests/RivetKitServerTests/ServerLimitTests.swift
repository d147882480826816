import Foundation
import NIOHTTP1
import RivetKit
import RivetKitServer
import RpcTransportNIO
import Synchronization
import Testing

@Suite("The actor server's limits are settings that hold")
struct ServerLimitTests {
    /// A gate that actions (or a server) wait at until ``open()`` is called.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        /// How many wait at the gate now.
        var waiting: Int { state.withLock { $0.waiters.count } }

        /// Returns once the gate is open.
        func pass() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state -> Bool in
                    if !state.open { state.waiters.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }

        /// Opens the gate: every waiter goes on, later ones pass at once.
        func open() {
            let waiters = state.withLock { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    static func registry(_ gate: Gate) -> ActorRegistry {
        var registry = DemoActors.registry
        registry.register(
            ActorDefinition("gated", initialState: 0).action("gate") { (context: inout ActorContext<Int>) in
                await gate.pass()
                context.state += 1
                return context.state
            })
        return registry
    }

    @Test("Actions past maxActionsInFlightPerConnection get action.too_many_in_flight; the connection stays")
    func actionsInFlight() async throws {
        let gate = Gate()
        var configuration = ServerHarness.configuration()
        configuration.maxActionsInFlightPerConnection = 2
        try await withActorServer(registry: Self.registry(gate), store: try SQLiteActorStore.inMemory(), configuration: configuration) {
            (server: ActorServer) async throws -> Void in
            let socket = try await ServerHarness.connect(server, "/gateway/gated/connect?rvt-method=getOrCreate&rvt-key=g")
            _ = try await socket.nextMessage()
            for id in 0 ..< 3 {
                try await socket.send(.actionRequest(id: UInt64(id), name: "gate", args: []))
            }
            guard case .error(let error, let actionId) = try await socket.nextMessage() else {
                Issue.record("expected the third action to be refused")
                return
            }
            #expect(error.code == "too_many_in_flight")
            #expect(actionId == 2)
            gate.open()
            #expect(try await socket.nextMessage() == .actionResponse(id: 0, output: 1))
            #expect(try await socket.nextMessage() == .actionResponse(id: 1, output: 2))
            await socket.transport.close(code: .normal, reason: "Disposed")
        }
    }

    @Test("Connections past maxConnectionsPerActor are closed with actor.too_many_connections")
    func connectionsPerActor() async throws {
        var configuration = ServerHarness.configuration()
        configuration.maxConnectionsPerActor = 1
        try await withActorServer(registry: DemoActors.registry, store: try SQLiteActorStore.inMemory(), configuration: configuration) {
            (server: ActorServer) async throws -> Void in
            let (first, _) = try await ServerHarness.counter(server, key: "busy")
            let second = try await ServerHarness.connect(
                server, "/gateway/counter/connect?rvt-method=getOrCreate&rvt-key=busy")
            #expect(try await second.closure().reason == "actor.too_many_connections")
            await first.transport.close(code: .normal, reason: "Disposed")
        }
    }

    @Test("A frame over maxMessageSize closes its connection with 1009, and a larger HTTP body gets 413 with message.incoming_too_long as a JSON error body")
    func messageSize() async throws {
        var configuration = ServerHarness.configuration()
        configuration.maxMessageSize = 1024
        try await withActorServer(registry: DemoActors.registry, store: try SQLiteActorStore.inMemory(), configuration: configuration) {
            (server: ActorServer) async throws -> Void in
            let (socket, actorId) = try await ServerHarness.counter(server, key: "big")
            try? await socket.transport.send(
                .text(RivetMessageCodec.encode(ClientMessage.actionRequest(id: 0, name: "increment", args: [.string(String(repeating: "x", count: 2000))]))))
            #expect(try await socket.closure().code == .messageTooBig)
            let client = try HTTPClient(baseURL: server.endpoint)
            let large = try await client.execute(
                HTTPClientRequest(
                    method: .POST, path: "/gateway/\(actorId)/action/getCount",
                    json: RivetMessageCodec.encodeActionRequestBody(args: [.string(String(repeating: "y", count: 2000))])))
            #expect(large.status == 413)
            #expect(large.headers.first(name: "content-type") == "application/json")
            #expect(
                try JSONValue(parsing: large.body)
                    == ["group": "message", "code": "incoming_too_long", "message": "the request body is over the limit of 1024 bytes",
                        "metadata": ["limit": 1024]])
            #expect(RivetMessageCodec.decodeErrorBody(large.body)?.code == "incoming_too_long")
            await client.close()
        }
    }
}
