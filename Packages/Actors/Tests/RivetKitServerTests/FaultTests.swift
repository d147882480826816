import Foundation
import NIOHTTP1
import RivetKit
import RivetKitServer
import RpcTransportNIO
import Synchronization
import Testing

@Suite("Client faults: stale actors, a restart mid-action, a silent server")
struct FaultTests {
    @Test("A key-based connection whose actor is destroyed re-resolves it and connects to the new one")
    func staleActor() async throws {
        try await withActorServer(
            registry: DemoActors.registry, store: try SQLiteActorStore.inMemory(), configuration: ServerHarness.configuration()
        ) { (server: ActorServer) async throws -> Void in
            var config = ClientConfig(endpoint: server.endpoint, token: nil, namespace: nil)
            config.reconnectBackoff = Backoff(initialDelay: .milliseconds(20), maxDelay: .milliseconds(100))
            let client = RivetKitClient(config)
            let connection = client.getOrCreate("counter", key: ["stale"]).connect()
            let errors = connection.errors()
            connection.start()
            #expect(try await connection.action("increment", args: [9]) == 9)
            let oldId = try #require(connection.actorId)
            let http = try HTTPClient(baseURL: server.endpoint)
            _ = try await http.execute(HTTPClientRequest(method: .DELETE, path: "/actors/\(oldId)"))
            var iterator = errors.makeAsyncIterator()
            let error = await iterator.next()
            #expect(error?.group == "actor")
            #expect(error?.code == "destroyed_while_connected")
            try await ServerHarness.waitUntil { connection.status == .connected && connection.actorId != oldId }
            #expect(try await connection.action("getCount", args: []) == 0)
            await connection.dispose()
            await http.close()
            await client.close()
        }
    }

    @Test("Stopping the server mid-action rejects the pending action with a structured error")
    func restartMidAction() async throws {
        let started = Mutex(false)
        var registry = ActorRegistry()
        registry.register(
            ActorDefinition("slow", initialState: 0).action("work") { (context: inout ActorContext<Int>) in
                started.withLock { $0 = true }
                try? await Task.sleep(for: .milliseconds(500))
                context.state += 1
                return context.state
            })
        var pending: Task<JSONValue, any Error>?
        var connection: ActorConnection?
        var client: RivetKitClient?
        try await withActorServer(
            registry: registry, store: try SQLiteActorStore.inMemory(), configuration: ServerHarness.configuration()
        ) { (server: ActorServer) async throws -> Void in
            let live = RivetKitClient(ClientConfig(endpoint: server.endpoint, token: nil, namespace: nil))
            client = live
            let opened = live.getOrCreate("slow", key: ["mid"]).connect()
            connection = opened
            opened.start()
            pending = Task { try await opened.action("work", args: []) }
            try await ServerHarness.waitUntil { started.withLock { $0 } }
        }
        let result = try #require(await pending?.result)
        guard case .failure(let failure) = result, let error = failure as? ActorError else {
            Issue.record("expected the pending action to fail with an ActorError, got \(result)")
            return
        }
        #expect(error.group == "client")
        #expect(error.code == "connection_lost")
        #expect(connection?.status == .disconnected)
        await connection?.dispose()
        await client?.close()
    }

    @Test("A server that never answers the upgrade makes the first open fail within the connect timeout")
    func silentServer() async throws {
        var configuration = TransportServerConfiguration(address: .host("127.0.0.1", port: 0))
        configuration.shutdownGracePeriod = .milliseconds(100)
        configuration.upgradeHook = { _ in
            try? await Task.sleep(for: .seconds(30))
            return .reject(status: 503)
        }
        try await withTransportServer(
            configuration: configuration, onConnection: { _, _ in },
            onRequest: { _ in HTTPServerResponse(status: 200, json: "{}") }
        ) { server in
            var config = ClientConfig(
                endpoint: "http://127.0.0.1:\(server.port ?? 0)", token: nil, namespace: nil, disableMetadataLookup: true)
            config.connectTimeout = .milliseconds(200)
            let client = RivetKitClient(config)
            let connection = client.getOrCreate("counter", key: ["silent"]).connect()
            let errors = connection.errors()
            connection.start()
            var iterator = errors.makeAsyncIterator()
            let error = await iterator.next()
            #expect(error?.code == "connection_open_failed")
            try await ServerHarness.waitUntil { connection.status == .idle }
            await connection.dispose()
            await client.close()
        }
    }

    @Test("A server that accepts the socket but never sends Init fails the first open within the connect timeout")
    func silentAfterUpgrade() async throws {
        let closes = Mutex<[CloseCode?]>([])
        try await Self.withRivetSocketServer(
            onConnection: { transport, _ in
                let closure = await Self.closure(of: transport)
                closes.withLock { $0.append(closure.code) }
            }
        ) { endpoint in
            var config = ClientConfig(endpoint: endpoint, token: nil, namespace: nil, disableMetadataLookup: true)
            config.connectTimeout = .milliseconds(200)
            let client = RivetKitClient(config)
            let connection = client.getOrCreate("counter", key: ["mute"]).connect()
            let errors = connection.errors()
            connection.start()
            let queued = Task { () -> ActorError? in
                do throws(ActorError) {
                    _ = try await connection.action("getCount", args: [])
                    return nil
                } catch {
                    return error
                }
            }
            // Bounded: without the timeout the connection would stay connecting.
            try await ServerHarness.waitUntil { connection.status == .idle }
            var iterator = errors.makeAsyncIterator()
            let error = await iterator.next()
            #expect(error?.group == "client")
            #expect(error?.code == "connection_open_failed")
            #expect(await queued.value?.code == "connection_open_failed")
            try await ServerHarness.waitUntil { closes.withLock { $0.count } == 1 }
            #expect(closes.withLock { $0 } == [.policyViolation])
            await connection.dispose()
            await client.close()
        }
    }

    @Test("After a first Init, a reconnection whose server stays silent is closed at the connect timeout and tried again")
    func silentOnReconnect() async throws {
        let attempts = Atomic<Int>(0)
        let closes = Mutex<[CloseCode?]>([])
        try await Self.withRivetSocketServer(
            onConnection: { transport, _ in
                let attempt = attempts.add(1, ordering: .relaxed).newValue
                // The first and third connections get their Init; the first is then dropped,
                // the second never hears anything.
                if attempt != 2 {
                    _ = try? transport.enqueue(.text(RivetMessageCodec.encode(ServerMessage.initialize(
                        actorId: "actor-\(attempt)", connectionId: "conn-\(attempt)"))))
                }
                if attempt == 1 {
                    try? await Task.sleep(for: .milliseconds(50))
                    await transport.close(code: .goingAway, reason: "")
                    return
                }
                let closure = await Self.closure(of: transport)
                closes.withLock { $0.append(closure.code) }
            }
        ) { endpoint in
            var config = ClientConfig(endpoint: endpoint, token: nil, namespace: nil, disableMetadataLookup: true)
            config.connectTimeout = .milliseconds(300)
            config.reconnectBackoff = Backoff(initialDelay: .milliseconds(10), maxDelay: .milliseconds(50))
            let client = RivetKitClient(config)
            let connection = client.getOrCreate("counter", key: ["mute-later"]).connect()
            connection.start()
            try await ServerHarness.waitUntil { connection.actorId == "actor-3" && connection.status == .connected }
            #expect(attempts.load(ordering: .relaxed) == 3)
            try await ServerHarness.waitUntil { closes.withLock { $0.count } == 1 }
            #expect(closes.withLock { $0 } == [.policyViolation])
            await connection.dispose()
            await client.close()
        }
    }

    /// Runs `body` with the endpoint of a server that accepts every gateway upgrade with the
    /// `rivet` sub-protocol and hands the socket to `onConnection`.
    private static func withRivetSocketServer(
        onConnection: @escaping @Sendable (WebSocketTransport, WebSocketUpgradeRequest) async -> Void,
        _ body: (String) async throws -> Void
    ) async throws {
        var configuration = TransportServerConfiguration(address: .host("127.0.0.1", port: 0))
        configuration.shutdownGracePeriod = .milliseconds(100)
        configuration.upgradeHook = { _ in .accept(subprotocol: "rivet") }
        try await withTransportServer(
            configuration: configuration, onConnection: onConnection,
            onRequest: { _ in HTTPServerResponse(status: 200, json: "{}") }
        ) { server in
            try await body("http://127.0.0.1:\(server.port ?? 0)")
        }
    }

    /// Reads `transport` until it closes; returns how.
    private static func closure(of transport: WebSocketTransport) async -> TransportClosure {
        let (events, continuation) = AsyncStream<TransportClosure>.makeStream()
        transport.start { event in
            if case .closed(let closure) = event {
                continuation.yield(closure)
                continuation.finish()
            }
        }
        for await closure in events { return closure }
        return TransportClosure(code: nil, initiatedLocally: false)
    }
}
