import Foundation
import NIOHTTP1
import RivetKit
import RivetKitServer
import RpcTransportNIO
import Testing

@Suite("ClientConfig endpoint rules")
struct ClientConfigTests {
    @Test("Credentials in the endpoint give the namespace and token; conflicts and queries are config errors")
    func endpointRules() throws {
        let plain = try ClientConfig(endpoint: "https://example.com/api/rivet/", token: nil, namespace: nil).resolved()
        #expect(plain.endpoint == "https://example.com/api/rivet")
        let both = try ClientConfig(endpoint: "https://prod:tok@example.com/api", token: nil, namespace: nil).resolved()
        #expect(both.endpoint == "https://example.com/api")
        #expect(both.namespace == "prod")
        #expect(both.token == "tok")
        #expect(try ClientConfig(endpoint: "http://ns@h:1", token: nil, namespace: nil).resolved().namespace == "ns")
        for bad in [
            ClientConfig(endpoint: "http://:tok@h", token: nil, namespace: nil),
            ClientConfig(endpoint: "http://h/?a=1", token: nil, namespace: nil),
            ClientConfig(endpoint: "http://h/#x", token: nil, namespace: nil),
            ClientConfig(endpoint: "http://ns@h", token: nil, namespace: "other"),
            ClientConfig(endpoint: "http://ns:t@h", token: "t2", namespace: nil),
            ClientConfig(endpoint: "ftp://h", token: nil, namespace: nil),
        ] {
            let error = #expect(throws: ActorError.self) { try bad.resolved() }
            #expect(error?.group == "client")
            #expect(error?.code == "config_error", "\(bad.endpoint)")
        }
    }

    @Test("The identity hash covers name, key and params only")
    func identityHash() {
        let base = ActorOptions(name: "chat", key: ["room"], params: ["user": "a", "z": 1])
        var other = base
        other.createWithInput = 5
        other.createInRegion = "eu"
        other.enabled = false
        #expect(base.hash == other.hash)
        #expect(ActorOptions(name: "chat", key: ["room"], params: ["z": 1, "user": "a"]).hash == base.hash)
        #expect(ActorOptions(name: "chat", key: ["room2"], params: base.params).hash != base.hash)
        #expect(ActorOptions(name: "chat", key: ["room"], params: ["user": "b", "z": 1]).hash != base.hash)
    }
}

@Suite("The client against the actor server over loopback")
struct ClientTests {
    static func withServer(
        token: String? = nil, path: String? = nil, port: Int = 0,
        _ body: (ActorServer) async throws -> Void
    ) async throws {
        var configuration = ServerHarness.configuration(token: token)
        configuration.port = port
        let store: any ActorStore = try path.map { try SQLiteActorStore(path: $0) } ?? SQLiteActorStore.inMemory()
        try await withActorServer(registry: DemoActors.registry, store: store, configuration: configuration, body)
    }

    static func waitFor(_ connection: ActorConnection, _ status: ActorConnStatus) async throws {
        try await ServerHarness.waitUntil { connection.status == status }
    }

    @Test("HTTP actions through a handle: get-or-create, typed output, typed errors, params and token")
    func handleActions() async throws {
        try await Self.withServer(token: "tok") { (server: ActorServer) async throws -> Void in
            let client = RivetKitClient(ClientConfig(endpoint: server.endpoint, token: "tok", namespace: "ns1"))
            let handle = client.getOrCreate("counter", key: ["h"], params: ["user": "alice"], createWithInput: 10)
            #expect(try await handle.action("increment", args: [5]) == 15)
            let count: Int = try await handle.action("getCount", arguments: [])
            #expect(count == 15)
            #expect(try await handle.action("whoAmI", args: []) == "alice")
            let error = await #expect(throws: ActorError.self) { try await handle.action("fail", args: []) }
            #expect(error == ActorError(group: "user", code: "test_error", message: "boom", metadata: ["why": "asked to fail"]))
            let decode = await #expect(throws: ActorError.self) { let _: String = try await handle.action("getCount", arguments: []) }
            #expect(decode?.code == "decode_error")
            let resolved = try await client.resolvedConfig()
            #expect(resolved.namespace == "ns1")
            let unauthorized = RivetKitClient(ClientConfig(endpoint: server.endpoint, token: "wrong", disableMetadataLookup: true))
            let refused = await #expect(throws: ActorError.self) {
                try await unauthorized.getOrCreate("counter", key: ["h"]).action("getCount", args: [])
            }
            #expect(refused?.code == "unauthorized")
            await unauthorized.close()
            await client.close()
        }
    }

    @Test("The metadata lookup's clientNamespace and clientToken override the configuration")
    func metadataOverride() async throws {
        let configuration = TransportServerConfiguration(address: .host("127.0.0.1", port: 0))
        try await withTransportServer(configuration: configuration, onRequest: { request in
            HTTPServerResponse(status: 200, json: #"{"runtime":"rivetkit","clientNamespace":"over","clientToken":"t9"}"#)
        }) { server in
            let client = RivetKitClient(ClientConfig(endpoint: "http://127.0.0.1:\(server.port ?? 0)", token: nil, namespace: nil))
            let resolved = try await client.resolvedConfig()
            #expect(resolved.namespace == "over")
            #expect(resolved.token == "t9")
            await client.close()
        }
    }

    @Test("A realtime connection: actions queued before Init, events of subscribed names, per-action errors, dispose")
    func realtime() async throws {
        try await Self.withServer { (server: ActorServer) async throws -> Void in
            let client = RivetKitClient(ClientConfig(endpoint: server.endpoint, token: nil, namespace: nil))
            let connection = client.getOrCreate("counter", key: ["rt"]).connect()
            let events = connection.events("newCount")
            async let first = connection.action("increment", args: [2])
            connection.start()
            #expect(try await first == 2)
            #expect(connection.status == .connected)
            #expect(connection.actorId != nil)
            var iterator = events.makeAsyncIterator()
            #expect(await iterator.next() == [2])
            #expect(try await connection.action("increment", args: [3]) == 5)
            #expect(await iterator.next() == [5])
            let failure = await #expect(throws: ActorError.self) { try await connection.action("fail", args: []) }
            #expect(failure?.group == "user")
            #expect(connection.status == .connected)
            await connection.dispose()
            #expect(connection.status == .idle)
            let afterDispose = await #expect(throws: ActorError.self) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { _ = try await connection.action("getCount", args: []) }
                    try await Task.sleep(for: .milliseconds(50))
                    await connection.dispose()
                    try await group.waitForAll()
                }
            }
            #expect(afterDispose?.code == "disposed")
            await client.close()
        }
    }

    @Test("A connection offers its socket's executor only while connected, and actions awaited from it answer in order")
    func executorWhileConnected() async throws {
        try await Self.withServer { (server: ActorServer) async throws -> Void in
            let client = RivetKitClient(ClientConfig(endpoint: server.endpoint, token: nil, namespace: nil))
            let connection = client.getOrCreate("counter", key: ["loop"]).connect()
            #expect(connection.executor == nil)
            connection.start()
            #expect(try await connection.action("increment", args: [1]) == 1)
            let executor = try #require(connection.executor)
            let counts = try await withTaskExecutorPreference(executor) {
                var counts: [JSONValue] = []
                for _ in 0 ..< 20 { counts.append(try await connection.action("increment", args: [1])) }
                return counts
            }
            #expect(counts == (2 ... 21).map { JSONValue.integer(Int64($0)) })
            await connection.dispose()
            #expect(connection.executor == nil)
            await client.close()
        }
    }

    @Test("A listener that does not read keeps only the newest maxBufferedEvents events")
    func slowConsumer() async throws {
        try await Self.withServer { (server: ActorServer) async throws -> Void in
            var config = ClientConfig(endpoint: server.endpoint, token: nil, namespace: nil)
            config.maxBufferedEvents = 2
            let client = RivetKitClient(config)
            let connection = client.getOrCreate("counter", key: ["slow"]).connect()
            let events = connection.events("newCount")
            connection.start()
            for _ in 0 ..< 5 { _ = try await connection.action("increment", args: [1]) }
            // The events come before this answer on the same socket, so all five have arrived.
            #expect(try await connection.action("getCount", args: []) == 5)
            var iterator = events.makeAsyncIterator()
            #expect(await iterator.next() == [4])
            #expect(await iterator.next() == [5])
            await connection.dispose()
            await client.close()
        }
    }

    @Test("Opening against nothing goes to idle with client.connection_open_failed")
    func openFailure() async throws {
        let client = RivetKitClient(ClientConfig(endpoint: "http://127.0.0.1:1", token: nil, namespace: nil, disableMetadataLookup: true))
        let connection = client.getOrCreate("counter", key: ["x"]).connect()
        let errors = connection.errors()
        connection.start()
        var iterator = errors.makeAsyncIterator()
        let error = await iterator.next()
        #expect(error?.code == "connection_open_failed")
        try await Self.waitFor(connection, .idle)
        await connection.dispose()
        await client.close()
    }

    @Test("Users of one identity hash share one connection, released when the last one leaves")
    func sharedConnections() async throws {
        try await Self.withServer { (server: ActorServer) async throws -> Void in
            let client = RivetKitClient(ClientConfig(endpoint: server.endpoint, token: nil, namespace: nil))
            let options = ActorOptions(name: "counter", key: ["shared"], params: ["user": "a"])
            let first = client.acquireConnection(options)
            var withInput = options
            withInput.createWithInput = 3
            let second = client.acquireConnection(withInput)
            #expect(first === second)
            #expect(client.connectionUsers(hash: options.hash) == 2)
            first.start()
            try await Self.waitFor(first, .connected)
            await client.releaseConnection(first)
            #expect(first.status == .connected)
            await client.releaseConnection(second)
            #expect(first.status == .idle)
            #expect(client.connectionUsers(hash: options.hash) == 0)
            await client.close()
        }
    }

    @Test("After a server restart the client reconnects, subscribes after the new Init, later events arrive and the count is kept")
    func serverRestart() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("actors-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var port = 0
        let client = RivetKitClient(ClientConfig(endpoint: "http://127.0.0.1:1", token: nil, namespace: nil, disableMetadataLookup: true))
        var connection: ActorConnection?
        var restartClient: RivetKitClient?
        try await Self.withServer(path: path) { (server: ActorServer) async throws -> Void in
            port = server.port
            let live = RivetKitClient(
                ClientConfig(
                    endpoint: server.endpoint, token: nil, namespace: nil, disableMetadataLookup: true,
                    reconnectBackoff: Backoff(initialDelay: .milliseconds(50), maxDelay: .milliseconds(200))))
            restartClient = live
            let opened = live.getOrCreate("counter", key: ["restart"]).connect()
            connection = opened
            opened.start()
            #expect(try await opened.action("increment", args: [4]) == 4)
            try await Self.waitFor(opened, .connected)
        }
        let opened = try #require(connection)
        try await ServerHarness.waitUntil { opened.status != .connected }
        #expect(opened.status == .disconnected)
        let events = opened.events("newCount")
        try await Self.withServer(path: path, port: port) { (_: ActorServer) async throws -> Void in
            try await Self.waitFor(opened, .connected)
            #expect(try await opened.action("increment", args: [1]) == 5)
            var iterator = events.makeAsyncIterator()
            #expect(await iterator.next() == [5])
            await opened.dispose()
        }
        await restartClient?.close()
        await client.close()
    }
}
