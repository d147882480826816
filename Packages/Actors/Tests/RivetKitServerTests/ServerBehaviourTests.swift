import Foundation
import NIOHTTP1
import RivetKit
import RivetKitServer
import RpcTransportNIO
import Synchronization
import Testing
import RpcDoTesting
import RpcWire

@Suite("The actor server's behaviour")
struct ServerBehaviourTests {
    @Test("Events reach the connections that subscribed to them and no other")
    func eventsToSubscribersOnly() async throws {
        try await withActorServer(registry: DemoActors.registry, store: try SQLiteActorStore.inMemory(), configuration: ServerHarness.configuration()) { server in
            let (listener, id) = try await ServerHarness.counter(server, key: "shared")
            let (caller, otherId) = try await ServerHarness.counter(server, key: "shared")
            #expect(id == otherId)
            try await listener.send(.subscriptionRequest(eventName: "newCount", subscribe: true))
            // A round trip on the listener makes sure its subscription has been handled.
            try await listener.send(.actionRequest(id: 0, name: "getCount", args: []))
            #expect(try await listener.nextMessage() == .actionResponse(id: 0, output: 0))
            try await caller.send(.actionRequest(id: 0, name: "increment", args: [3]))
            #expect(try await caller.nextMessage() == .actionResponse(id: 0, output: 3))
            #expect(try await listener.nextMessage() == .event(name: "newCount", args: [3]))
            try await caller.send(.actionRequest(id: 1, name: "getCount", args: []))
            // The caller did not subscribe: its next frame is the answer, not an event.
            #expect(try await caller.nextMessage() == .actionResponse(id: 1, output: 3))
            try await listener.send(.subscriptionRequest(eventName: "newCount", subscribe: false))
            try await listener.send(.actionRequest(id: 1, name: "increment", args: [1]))
            #expect(try await listener.nextMessage() == .actionResponse(id: 1, output: 4))
            await listener.transport.close(code: .normal, reason: "Disposed")
            await caller.transport.close(code: .normal, reason: "Disposed")
        }
    }

    @Test("Action errors reach the caller with group, code, message and metadata; unknown actions are action.not_found")
    func actionErrors() async throws {
        try await withActorServer(registry: DemoActors.registry, store: try SQLiteActorStore.inMemory(), configuration: ServerHarness.configuration()) { server in
            let (socket, actorId) = try await ServerHarness.counter(server, key: "errors")
            try await socket.send(.actionRequest(id: 0, name: "nope", args: []))
            guard case .error(let error, let actionId) = try await socket.nextMessage() else {
                Issue.record("expected an error")
                return
            }
            #expect(error.group == "action")
            #expect(error.code == "not_found")
            #expect(actionId == 0)
            try await socket.send(.actionRequest(id: 1, name: "increment", args: ["x"]))
            guard case .error(let invalid, 1) = try await socket.nextMessage() else {
                Issue.record("expected an error for action 1")
                return
            }
            #expect(invalid.group == "request")
            let client = try HTTPClient(baseURL: server.endpoint)
            let failed = try await ServerHarness.httpAction(client, actorId: actorId, "fail")
            #expect(failed.status == 400)
            #expect(
                failed.body == ["group": "user", "code": "test_error", "message": "boom", "metadata": ["why": "asked to fail"]])
            await client.close()
            await socket.transport.close(code: .normal, reason: "Disposed")
        }
    }

    @Test("With a token, requests without it are refused with auth.unauthorized over HTTP and the gateway")
    func tokenRequired() async throws {
        try await withActorServer(registry: DemoActors.registry, store: try SQLiteActorStore.inMemory(), configuration: ServerHarness.configuration(token: "secret")) { server in
            let client = try HTTPClient(baseURL: server.endpoint)
            let refused = try await client.execute(HTTPClientRequest(method: .GET, path: "/metadata?namespace=default"))
            #expect(refused.status == 401)
            #expect(RivetMessageCodec.decodeErrorBody(refused.body)?.code == "unauthorized")
            var headers = HTTPHeaders()
            headers.add(name: "authorization", value: "Bearer secret")
            let allowed = try await client.execute(HTTPClientRequest(method: .GET, path: "/metadata", headers: headers))
            #expect(allowed.status == 200)
            let socket = try await ServerHarness.connect(
                server, "/gateway/counter/connect?rvt-namespace=default&rvt-method=getOrCreate&rvt-key=k")
            let closure = try await socket.closure()
            #expect(closure.reason == "auth.unauthorized")
            let withToken = try await ServerHarness.connect(
                server, "/gateway/counter/connect?rvt-namespace=default&rvt-method=getOrCreate&rvt-key=k&rvt-token=secret")
            guard case .initialize(let actorId, _) = try await withToken.nextMessage() else {
                Issue.record("expected Init")
                return
            }
            let byId = try await ServerHarness.connect(server, "/gateway/\(actorId)@secret/connect")
            guard case .initialize = try await byId.nextMessage() else {
                Issue.record("expected Init on the @token form")
                return
            }
            await withToken.transport.close(code: .normal, reason: "Disposed")
            await byId.transport.close(code: .normal, reason: "Disposed")
            await client.close()
        }
    }

    @Test("The same name and key in two namespaces are two actors")
    func namespaces() async throws {
        try await withActorServer(registry: DemoActors.registry, store: try SQLiteActorStore.inMemory(), configuration: ServerHarness.configuration()) { server in
            let client = try HTTPClient(baseURL: server.endpoint)
            let first = try await ServerHarness.getOrCreate(client, name: "counter", key: ["k"], namespace: "a")
            let second = try await ServerHarness.getOrCreate(client, name: "counter", key: ["k"], namespace: "b")
            #expect(first != second)
            #expect(try await ServerHarness.getOrCreate(client, name: "counter", key: ["k"], namespace: "a") == first)
            _ = try await ServerHarness.httpAction(client, actorId: first, "increment", args: [2])
            #expect(try await ServerHarness.httpAction(client, actorId: second, "getCount").body == ["output": 0])
            #expect(try await ServerHarness.httpAction(client, actorId: first, "getCount").body == ["output": 2])
            let listed = try await client.execute(HTTPClientRequest(method: .GET, path: "/actors?namespace=b&name=counter&key=k"))
            #expect(try JSONValue(parsing: listed.body)["actors"]?[0]?["actor_id"] == .string(second))
            let byId = try await client.execute(HTTPClientRequest(method: .GET, path: "/actors?namespace=a&actor_ids=\(first)"))
            #expect(try JSONValue(parsing: byId.body)["actors"]?.arrayValue?.count == 1)
            await client.close()
        }
    }

    @Test("A counter created with input starts at it, over REST (base64 CBOR) and the query gateway (rvt-input)")
    func creationInput() async throws {
        try await withActorServer(registry: DemoActors.registry, store: try SQLiteActorStore.inMemory(), configuration: ServerHarness.configuration()) { server in
            let client = try HTTPClient(baseURL: server.endpoint)
            let id = try await ServerHarness.getOrCreate(client, name: "counter", key: ["from-input"], input: 41)
            #expect(try await ServerHarness.httpAction(client, actorId: id, "increment", args: [1]).body == ["output": 42])
            let input = Base64.encode(RivetCBOR.encode(100), urlSafe: true)
            let socket = try await ServerHarness.connect(
                server, "/gateway/counter/connect?rvt-namespace=default&rvt-method=getOrCreate&rvt-key=gw&rvt-input=\(input)")
            _ = try await socket.nextMessage()
            try await socket.send(.actionRequest(id: 0, name: "getCount", args: []))
            #expect(try await socket.nextMessage() == .actionResponse(id: 0, output: 100))
            await socket.transport.close(code: .normal, reason: "Disposed")
            await client.close()
        }
    }

    @Test("A hostile frame closes only its own connection, with message.malformed")
    func hostileFrame() async throws {
        try await withActorServer(registry: DemoActors.registry, store: try SQLiteActorStore.inMemory(), configuration: ServerHarness.configuration()) { server in
            let (good, _) = try await ServerHarness.counter(server, key: "hostile")
            let (bad, _) = try await ServerHarness.counter(server, key: "hostile")
            try await bad.transport.send(.text(#"{"body":{"tag":"ActionRequest","val":{"id":"zero"}}}"#))
            let closure = try await bad.closure()
            #expect(closure.reason == "message.malformed")
            #expect(closure.code == .internalError)
            try await good.send(.actionRequest(id: 0, name: "getCount", args: []))
            #expect(try await good.nextMessage() == .actionResponse(id: 0, output: 0))
            await good.transport.close(code: .normal, reason: "Disposed")
        }
    }

    @Test("Connection params reach onBeforeConnect and actions; a refusal reaches the client as its error")
    func connectionParams() async throws {
        try await withActorServer(registry: Self.guardedRegistry, store: try SQLiteActorStore.inMemory(), configuration: ServerHarness.configuration()) { server in
            let refused = try await ServerHarness.connect(
                server, "/gateway/guarded/connect?rvt-method=getOrCreate&rvt-key=x", params: #"{"user":"mallory"}"#)
            #expect(try await refused.closure().reason == "auth.forbidden")
            let allowed = try await ServerHarness.connect(
                server, "/gateway/guarded/connect?rvt-method=getOrCreate&rvt-key=x", params: #"{"user":"alice"}"#)
            guard case .initialize(let actorId, _) = try await allowed.nextMessage() else {
                Issue.record("expected Init")
                return
            }
            try await allowed.send(.actionRequest(id: 0, name: "whoAmI", args: []))
            #expect(try await allowed.nextMessage() == .actionResponse(id: 0, output: "alice"))
            let client = try HTTPClient(baseURL: server.endpoint)
            var headers = HTTPHeaders()
            headers.add(name: "x-rivet-conn-params", value: #"{"user":"bob"}"#)
            let http = try await ServerHarness.httpAction(client, actorId: actorId, "whoAmI", headers: headers)
            #expect(http.status == 401)
            #expect(http.body["code"] == "forbidden")
            headers.replaceOrAdd(name: "x-rivet-conn-params", value: #"{"user":"alice"}"#)
            #expect(try await ServerHarness.httpAction(client, actorId: actorId, "whoAmI", headers: headers).body == ["output": "alice"])
            await allowed.transport.close(code: .normal, reason: "Disposed")
            await client.close()
        }
    }

    @Test("Each actor runs its actions one at a time, even when they suspend")
    func oneAtATime() async throws {
        let probe = ConcurrencyProbe()
        var registry = ActorRegistry()
        registry.register(
            ActorDefinition("slow", initialState: 0).action("work") { (context: inout ActorContext<Int>) in
                probe.enter()
                try await Task.sleep(for: .milliseconds(5))
                probe.leave()
                context.state += 1
                return context.state
            })
        try await withActorServer(registry: registry, store: try SQLiteActorStore.inMemory(), configuration: ServerHarness.configuration()) { server in
            let client = try HTTPClient(baseURL: server.endpoint)
            let id = try await ServerHarness.getOrCreate(client, name: "slow", key: ["one"])
            let outputs = try await withThrowingTaskGroup(of: JSONValue.self) { group in
                for _ in 0 ..< 12 {
                    group.addTask { try await ServerHarness.httpAction(client, actorId: id, "work").body }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(outputs.compactMap { $0["output"]?.intValue }) == Set(1 ... 12))
            #expect(probe.maximum == 1)
            await client.close()
        }
    }

    @Test("Acknowledged state survives a server restart, and an idle actor sleeps and wakes with its state")
    func durability() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("actors-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = ServerHarness.configuration()
        configuration.sleepTimeout = .milliseconds(50)
        var actorId = ""
        try await withActorServer(registry: DemoActors.registry, store: try SQLiteActorStore(path: path), configuration: configuration) { server in
            let client = try HTTPClient(baseURL: server.endpoint)
            actorId = try await ServerHarness.getOrCreate(client, name: "counter", key: ["durable"])
            #expect(try await ServerHarness.httpAction(client, actorId: actorId, "increment", args: [7]).body == ["output": 7])
            try await waitUntil("no actor is awake") { await server.awakeActorCount() == 0 }
            #expect(try await ServerHarness.httpAction(client, actorId: actorId, "increment", args: [1]).body == ["output": 8])
            await client.close()
        }
        try await withActorServer(registry: DemoActors.registry, store: try SQLiteActorStore(path: path), configuration: configuration) { server in
            let client = try HTTPClient(baseURL: server.endpoint)
            #expect(try await ServerHarness.getOrCreate(client, name: "counter", key: ["durable"]) == actorId)
            #expect(try await ServerHarness.httpAction(client, actorId: actorId, "getCount").body == ["output": 8])
            await client.close()
        }
    }

    @Test("Destroying an actor closes its connections and removes it")
    func destroy() async throws {
        try await withActorServer(registry: DemoActors.registry, store: try SQLiteActorStore.inMemory(), configuration: ServerHarness.configuration()) { server in
            let (socket, actorId) = try await ServerHarness.counter(server, key: "doomed")
            let client = try HTTPClient(baseURL: server.endpoint)
            let deleted = try await client.execute(HTTPClientRequest(method: .DELETE, path: "/actors/\(actorId)"))
            #expect(deleted.status == 200)
            // As RivetKit closes a destroyed actor's connections: 1000, no reason.
            let closure = try await socket.closure()
            #expect(closure.code == .normal)
            #expect(closure.reason == "")
            let gone = try await ServerHarness.httpAction(client, actorId: actorId, "getCount")
            #expect(gone.status == 404)
            #expect(gone.body["code"] == "not_found")
            // RivetKit's engine answers a DELETE of an unknown id with 400.
            let missing = try await client.execute(HTTPClientRequest(method: .DELETE, path: "/actors/\(actorId)"))
            #expect(missing.status == 400)
            await client.close()
        }
    }

    static var guardedRegistry: ActorRegistry {
        var registry = ActorRegistry()
        registry.register(
            ActorDefinition("guarded", initialState: 0)
                .onBeforeConnect { connection in
                    guard connection.params?["user"] == "alice" else {
                        throw ActorError(group: "auth", code: "forbidden", message: "only alice")
                    }
                }
                .action("whoAmI") { context in context.connection.params?["user"]?.stringValue })
        return registry
    }
}

/// Counts how many bodies run at once.
final class ConcurrencyProbe: Sendable {
    private let state = Mutex((current: 0, maximum: 0))

    func enter() {
        state.withLock {
            $0.current += 1
            $0.maximum = max($0.maximum, $0.current)
        }
    }

    func leave() {
        state.withLock { $0.current -= 1 }
    }

    var maximum: Int { state.withLock { $0.maximum } }
}
