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
}
