import Foundation
import NIOHTTP1
import RivetKit
import RivetKitServer
import RpcTransportNIO
import Synchronization
import Testing

@Suite("Handles that only get, that name an id, and that create")
struct ClientHandleTests {
    /// What a stand-in server saw: request lines with bodies, and WebSocket upgrades.
    final class Recorder: Sendable {
        struct Upgrade: Sendable {
            var uri: String
            var headers: HTTPHeaders
        }

        private let state = Mutex<(requests: [String], upgrades: [Upgrade])>(([], []))
        var requests: [String] { state.withLock { $0.requests } }
        var upgrades: [Upgrade] { state.withLock { $0.upgrades } }
        func record(_ request: HTTPServerRequest) {
            state.withLock { $0.requests.append("\(request.method.rawValue) \(request.uri) \(String(decoding: request.body, as: UTF8.self))") }
        }
        func record(_ upgrade: WebSocketUpgradeRequest) {
            state.withLock { $0.upgrades.append(Upgrade(uri: upgrade.uri, headers: upgrade.headers)) }
        }
    }

    /// Runs a stand-in server that records everything, refuses every upgrade and answers
    /// every request with `answer`.
    static func withRecorder(
        answer: @escaping @Sendable (HTTPServerRequest) -> HTTPServerResponse,
        _ body: (Recorder, String) async throws -> Void
    ) async throws {
        let recorder = Recorder()
        var configuration = TransportServerConfiguration(address: .host("127.0.0.1", port: 0))
        configuration.shutdownGracePeriod = .milliseconds(100)
        configuration.upgradeHook = { request in
            recorder.record(request)
            return .reject(status: 404)
        }
        try await withTransportServer(
            configuration: configuration, onConnection: { _, _ in },
            onRequest: { request in
                recorder.record(request)
                return answer(request)
            }
        ) { server in
            try await body(recorder, "http://127.0.0.1:\(server.port ?? 0)")
        }
    }

    @Test("A get handle never creates: a missing actor is actor.not_found over HTTP, an existing one answers")
    func getOnly() async throws {
        try await ClientTests.withServer { (server: ActorServer) async throws -> Void in
            let client = RivetKitClient(ClientConfig(endpoint: server.endpoint, token: nil, namespace: "ns-get"))
            let missing = client.get("counter", key: ["nobody"])
            let error = await #expect(throws: ActorError.self) { try await missing.action("getCount", args: []) }
            #expect(error?.group == "actor")
            #expect(error?.code == "not_found")
            let resolveError = await #expect(throws: ActorError.self) { try await missing.resolve() }
            #expect(resolveError?.code == "not_found")
            // Still missing: the get handle created nothing.
            let again = await #expect(throws: ActorError.self) { try await missing.action("getCount", args: []) }
            #expect(again?.code == "not_found")

            let created = client.getOrCreate("counter", key: ["some/body"], createWithInput: 4)
            let id = try await created.resolve()
            let existing = client.get("counter", key: ["some/body"])
            #expect(try await existing.resolve() == id)
            #expect(try await existing.action("increment", args: [1]) == 5)

            let connection = existing.connect()
            connection.start()
            #expect(try await connection.action("getCount", args: []) == 5)
            #expect(connection.actorId == id)
            await connection.dispose()
            await client.close()
        }
    }

    @Test("A get handle's socket uses rvt-method=get without input or region, and its lookup is GET /actors with the serialized key")
    func getWire() async throws {
        try await Self.withRecorder(answer: { _ in HTTPServerResponse(status: 200, json: #"{"actors":[]}"#) }) { recorder, endpoint in
            let client = RivetKitClient(ClientConfig(endpoint: endpoint, token: "t k", namespace: "n s", disableMetadataLookup: true))
            let handle = client.get("counter", key: ["a/b", "c"], params: ["user": "x"])
            let error = await #expect(throws: ActorError.self) { try await handle.resolve() }
            #expect(error == ActorError(group: "actor", code: "not_found", message: error?.message ?? ""))
            #expect(recorder.requests == [#"GET /actors?name=counter&key=a%5C%2Fb%2Fc&namespace=n%20s "#])
            let connection = handle.connect()
            let errors = connection.errors()
            connection.start()
            var iterator = errors.makeAsyncIterator()
            #expect(await iterator.next()?.code == "connection_open_failed")
            let upgrade = try #require(recorder.upgrades.first)
            #expect(upgrade.uri == "/gateway/counter/connect?rvt-namespace=n+s&rvt-method=get&rvt-key=a%2Fb,c&rvt-token=t+k")
            #expect(upgrade.headers["x-rivet-token"].isEmpty)
            await connection.dispose()
            await client.close()
        }
    }

    @Test("An id handle resolves to its id without a request and shares no connection with a key handle")
    func idIdentity() async throws {
        // Nothing listens here: any request would fail.
        let client = RivetKitClient(ClientConfig(endpoint: "http://127.0.0.1:1", token: nil, namespace: nil))
        let handle = client.getForId("counter", actorId: "actor-7")
        #expect(try await handle.resolve() == "actor-7")
        #expect(handle.options.lookup == .id("actor-7"))
        let byKey = ActorOptions(name: "counter", key: [])
        let byId = ActorOptions(name: "counter", key: [], lookup: .id("actor-7"))
        let getOnly = ActorOptions(name: "counter", key: [], lookup: .get)
        #expect(byKey.hash != byId.hash)
        #expect(byKey.hash != getOnly.hash)
        #expect(byId.hash != ActorOptions(name: "counter", key: [], lookup: .id("actor-8")).hash)
        #expect(byId.hash == ActorOptions(name: "counter", key: ["ignored"], lookup: .id("actor-7")).hash)
        let first = client.acquireConnection(byId)
        let second = client.acquireConnection(byKey)
        #expect(first !== second)
        await client.close()
    }

    @Test("An id handle's socket goes to /gateway/{id}@token/connect with the token in the path only, its actions carry x-rivet-token")
    func idWire() async throws {
        try await Self.withRecorder(answer: { _ in HTTPServerResponse(status: 200, json: #"{"output":3}"#) }) { recorder, endpoint in
            let client = RivetKitClient(ClientConfig(endpoint: endpoint, token: "s/cret", namespace: nil, disableMetadataLookup: true))
            let handle = client.getForId("counter", actorId: "id 1")
            let connection = handle.connect()
            let errors = connection.errors()
            connection.start()
            var iterator = errors.makeAsyncIterator()
            #expect(await iterator.next()?.code == "connection_open_failed")
            let upgrade = try #require(recorder.upgrades.first)
            #expect(upgrade.uri == "/gateway/id%201@s%2Fcret/connect")
            #expect(upgrade.headers["x-rivet-token"].isEmpty)
            #expect(upgrade.headers["authorization"].isEmpty)
            #expect(try await handle.action("getCount", args: []) == 3)
            #expect(recorder.requests == [#"POST /gateway/id%201@s%2Fcret/action/getCount {"args":[]}"#])
            await connection.dispose()
            await client.close()
        }
    }

    @Test("An id handle calls and connects to its actor through the gateway, with a token")
    func idAgainstServer() async throws {
        try await ClientTests.withServer(token: "tok") { (server: ActorServer) async throws -> Void in
            let client = RivetKitClient(ClientConfig(endpoint: server.endpoint, token: "tok", namespace: nil))
            let id = try await client.getOrCreate("counter", key: ["by-id"], createWithInput: 2).resolve()
            let handle = client.getForId("counter", actorId: id, params: ["user": "bob"])
            #expect(try await handle.action("increment", args: [1]) == 3)
            #expect(try await handle.action("whoAmI", args: []) == "bob")
            let connection = handle.connect()
            connection.start()
            #expect(try await connection.action("getCount", args: []) == 3)
            #expect(connection.actorId == id)
            await connection.dispose()
            let missing = client.getForId("counter", actorId: "no-such-actor")
            let error = await #expect(throws: ActorError.self) { try await missing.action("getCount", args: []) }
            #expect(error?.group == "actor")
            #expect(error?.code == "not_found")
            await client.close()
        }
    }

    @Test("create posts the actor, gives an id handle, and a taken key is actor.duplicate_key")
    func create() async throws {
        try await ClientTests.withServer { (server: ActorServer) async throws -> Void in
            let client = RivetKitClient(ClientConfig(endpoint: server.endpoint, token: nil, namespace: nil))
            let handle = try await client.create("counter", key: ["fresh"], input: 7)
            guard case .id(let id) = handle.options.lookup else {
                Issue.record("create gave a handle by \(handle.options.lookup)")
                return
            }
            #expect(try await handle.action("getCount", args: []) == 7)
            #expect(try await client.getOrCreate("counter", key: ["fresh"]).resolve() == id)
            let duplicate = await #expect(throws: ActorError.self) { try await client.create("counter", key: ["fresh"]) }
            #expect(duplicate?.group == "actor")
            #expect(duplicate?.code == "duplicate_key")
            await client.close()
        }
    }

    @Test("Of concurrent creations of one key exactly one succeeds; the others are actor.duplicate_key")
    func concurrentCreate() async throws {
        try await ClientTests.withServer { (server: ActorServer) async throws -> Void in
            let client = RivetKitClient(ClientConfig(endpoint: server.endpoint, token: nil, namespace: nil))
            let outcomes = await withTaskGroup(of: String.self, returning: [String].self) { group in
                for _ in 0 ..< 8 {
                    group.addTask {
                        do throws(ActorError) {
                            _ = try await client.create("counter", key: ["contested"])
                            return "created"
                        } catch {
                            return error.description
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == "created" }.count == 1)
            #expect(outcomes.filter { $0.hasPrefix("actor.duplicate_key") }.count == 7)
            await client.close()
        }
    }

    @Test("create's body omits input and datacenter when they are not set, and carries them when they are")
    func createWire() async throws {
        try await Self.withRecorder(answer: { _ in HTTPServerResponse(status: 200, json: #"{"actor":{"actor_id":"new-1"}}"#) }) {
            recorder, endpoint in
            let client = RivetKitClient(ClientConfig(endpoint: endpoint, token: nil, namespace: nil, disableMetadataLookup: true))
            let plain = try await client.create("counter", key: ["k"])
            #expect(plain.options.lookup == .id("new-1"))
            _ = try await client.create("counter", key: ["k2"], input: 1, region: "eu")
            #expect(
                recorder.requests == [
                    #"POST /actors?namespace=default {"name":"counter","key":"k","runner_name_selector":"default","crash_policy":"sleep"}"#,
                    #"POST /actors?namespace=default {"name":"counter","key":"k2","runner_name_selector":"default","crash_policy":"sleep","datacenter":"eu","input":"AQ=="}"#,
                ])
            await client.close()
        }
    }

    @Test("A creation input longer than maxInputSize in rvt-input fails the open with client.config_error, without connecting")
    func inputLimit() async throws {
        try await Self.withRecorder(answer: { _ in HTTPServerResponse(status: 200, json: "{}") }) { recorder, endpoint in
            let client = RivetKitClient(ClientConfig(endpoint: endpoint, token: nil, namespace: nil, disableMetadataLookup: true))
            #expect(client.config.maxInputSize == 4096)
            let large = JSONValue.string(String(repeating: "x", count: 3100))  // over 4 KiB as base64url of CBOR
            let connection = client.getOrCreate("counter", key: ["big"], createWithInput: large).connect()
            let errors = connection.errors()
            let pending = Task { try await connection.action("getCount", args: []) }
            connection.start()
            var iterator = errors.makeAsyncIterator()
            let error = await iterator.next()
            #expect(error?.group == "client")
            #expect(error?.code == "config_error")
            #expect(error?.message.contains("4096") == true)
            let rejected = await #expect(throws: ActorError.self) { try await pending.value }
            #expect(rejected?.code == "config_error")
            try await ClientTests.waitFor(connection, .idle)
            #expect(recorder.upgrades.isEmpty)
            // Just under the limit, the socket is attempted (and refused by this server).
            let fits = JSONValue.string(String(repeating: "x", count: 3000))
            let smaller = client.getOrCreate("counter", key: ["fits"], createWithInput: fits).connect()
            let smallerErrors = smaller.errors()
            smaller.start()
            var smallerIterator = smallerErrors.makeAsyncIterator()
            #expect(await smallerIterator.next()?.code == "connection_open_failed")
            #expect(recorder.upgrades.count == 1)
            await smaller.dispose()
            await connection.dispose()
            await client.close()
        }
    }
}
