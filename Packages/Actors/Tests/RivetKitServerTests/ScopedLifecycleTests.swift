import RivetKit
import RivetKitServer
import RpcDoTesting
import Synchronization
import Testing

@Suite("Scoped lifecycles: withClient, withConnection, ActorObservable.close")
struct ScopedLifecycleTests {
    struct Boom: Error {}

    @Test("withClient closes the client when its body throws: its shared connections are disposed and it refuses further use")
    func withClientClosesOnThrow() async throws {
        try await InProcessServer.with { (server: InProcessServer) async throws in
            var config = ClientConfig(endpoint: "http://in-process", token: nil, namespace: nil, disableMetadataLookup: true)
            config.reconnectBackoff = Backoff(initialDelay: .milliseconds(1), maxDelay: .milliseconds(5))
            var kept: (client: RivetKitClient, connection: ActorConnection)?
            await #expect(throws: Boom.self) {
                try await RivetKitClient.withClient(config, transports: server.transports) { client in
                    let connection = client.acquireConnection(ActorOptions(name: "counter", key: ["scoped"]))
                    kept = (client, connection)
                    connection.start()
                    #expect(try await connection.action("increment", args: [1]) == 1)
                    throw Boom()
                }
            }
            let (client, connection) = try #require(kept)
            #expect(connection.status == .idle)
            let closed = await #expect(throws: ActorError.self) { try await client.resolvedConfig() }
            #expect(closed?.code == "closed")
            try await waitUntil("the server to let go of the connection") { server.openCount == 0 }
        }
    }

    @Test("withClient returns its body's value and closes the client")
    func withClientReturns() async throws {
        try await InProcessServer.with { (server: InProcessServer) async throws in
            var config = ClientConfig(endpoint: "http://in-process", token: nil, namespace: nil, disableMetadataLookup: true)
            config.connectTimeout = .seconds(5)
            var kept: RivetKitClient?
            let count = try await RivetKitClient.withClient(config, transports: server.transports) { client in
                kept = client
                return try await client.getOrCreate("counter", key: ["value"]).action("increment", args: [4])
            }
            #expect(count == 4)
            let closed = await #expect(throws: ActorError.self) { try await kept?.resolvedConfig() }
            #expect(closed?.code == "closed")
        }
    }

    @Test("A handle's withConnection disposes the connection (1000 Disposed) when its body throws, and returns its value otherwise")
    func withConnectionDisposes() async throws {
        let closures = Mutex<[TransportClosure]>([])
        try await InProcessServer.with { (server: InProcessServer) async throws in
            server.mode = .handle { transport, attempt in
                _ = try? transport.enqueue(.text(RivetMessageCodec.encode(ServerMessage.initialize(
                    actorId: "actor", connectionId: "conn-\(attempt)"))))
                let closure = await InProcessServer.closure(of: transport)
                closures.withLock { $0.append(closure) }
            }
            let client = server.client()
            let handle = client.getOrCreate("counter", key: ["scoped"])
            var opened: ActorConnection?
            await #expect(throws: Boom.self) {
                try await handle.withConnection { connection in
                    opened = connection
                    try await ClientTests.waitFor(connection, .connected)
                    throw Boom()
                }
            }
            #expect(opened?.status == .idle)
            try await waitUntil("the server to see the close") { closures.withLock { $0.count } == 1 }
            #expect(closures.withLock { $0.map(\.code) } == [.normal])
            #expect(closures.withLock { $0.map(\.reason) } == ["Disposed"])
            let id = try await handle.withConnection { connection in
                try await ClientTests.waitFor(connection, .connected)
                return connection.connectionId
            }
            #expect(id == "conn-2")
            try await waitUntil("the server to see the second close") { closures.withLock { $0.count } == 2 }
            await client.close()
        }
    }

    @Test("ActorObservable.close releases its connection and awaits its background work")
    @MainActor
    func observableClose() async throws {
        try await InProcessServer.with(registry: ActorObservableTests.registry) { (server: InProcessServer) async throws in
            let client = server.client()
            let counter = ActorObservable(client: client, options: ActorOptions(name: "counter", key: ["closing"]))
            try await waitUntil("the observable to connect") { counter.isConnected }
            counter.send("increment", 1)
            let hash = counter.hash
            await counter.close()
            // The release was awaited: nobody uses the connection any more.
            #expect(client.connectionUsers(hash: hash) == 0)
            #expect(counter.connStatus == .idle)
            try await waitUntil("the server to let go of the connection") { server.openCount == 0 }
            await client.close()
        }
    }
}
