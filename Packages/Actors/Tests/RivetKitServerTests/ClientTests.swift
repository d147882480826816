import Foundation
import NIOHTTP1
import RivetKit
import RivetKitServer
import RpcDoTesting
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

@Suite("The client against the actor server over loopback: HTTP, the socket's executor, an unreachable endpoint")
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
        try await waitUntil("the connection's status") { connection.status == status }
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
}
