import Foundation
import NIOHTTP1
import RivetKit
@testable import RivetKitServer
import RpcDoTesting
import RpcTransportNIO
import Testing

@Suite("Raw handlers: onRequest answers handle.fetch, onWebSocket takes handle.webSocket")
struct RawHandlerTests {
    private static func json(_ response: HTTPServerResponse) throws -> JSONValue {
        try JSONValue(parsing: String(decoding: response.body, as: UTF8.self))
    }

    @Test("A fetch by actor id reaches onRequest without the /request prefix, with its method, query, headers and body")
    func fetchById() async throws {
        let probe = RawProbe()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let id = try await RawProbe.create(server, key: "a")
            let response = await server.fetch(
                .POST, "/gateway/\(id)/request/items/7?page=2&sort=up",
                headers: ["x-test": "hello", "x-rivet-conn-params": #"{"user":"ann"}"#], body: "payload")
            #expect(response.status == 201)
            #expect(response.headers.first(name: "x-seen") == "yes")
            // A header value with a line break would end the header early: it is left out.
            #expect(!response.headers.contains(name: "x-split") && !response.headers.contains(name: "x-injected"))
            #expect(response.headers.first(name: "x-rivet-actor") == id)
            let seen = try Self.json(response)
            #expect(seen["method"] == "POST")
            #expect(seen["path"] == "/items/7")
            #expect(seen["query"] == "page=2&sort=up")
            #expect(seen["header"] == "hello")
            #expect(seen["body"] == "payload")
            #expect(seen["user"] == "ann")

            let root = try Self.json(await server.fetch(.GET, "/gateway/\(id)/request"))
            #expect(root["path"] == "/")
        }
    }

    @Test("A fetch through the key query finds (or creates) the actor and hides the rvt-* items from the handler")
    func fetchByKeyQuery() async throws {
        let probe = RawProbe()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let uri = "/gateway/raw/request/search?q=swift&rvt-namespace=default&rvt-method=getOrCreate&rvt-key=b&lang=en"
            let response = await server.fetch(.GET, uri)
            #expect(response.status == 201)
            let seen = try Self.json(response)
            #expect(seen["path"] == "/search")
            #expect(seen["query"] == "q=swift&lang=en")
            // The same actor as the id route reaches: its state is the one an action changed.
            let id = try await RawProbe.create(server, key: "b")
            #expect(try await server.httpAction(actorId: id, "increment").body == ["output": 1])
            #expect(try Self.json(await server.fetch(.GET, uri))["count"] == 1)
        }
    }

    @Test("An actor without onRequest answers 404 with an empty body; a throwing handler answers 500 with the error")
    func missingAndThrowingHandlers() async throws {
        let probe = RawProbe()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let plain = try await RawProbe.create(server, name: "plain", key: "c")
            let missing = await server.fetch(.GET, "/gateway/\(plain)/request/anything")
            #expect(missing.status == 404)
            #expect(missing.body.isEmpty)

            let raw = try await RawProbe.create(server, key: "c")
            let failed = await server.fetch(.GET, "/gateway/\(raw)/request/throw")
            #expect(failed.status == 500)
            let error = try Self.json(failed)
            #expect(error["group"] == "user")
            #expect(error["code"] == "handler_failed")
            #expect(error["message"] == "asked to fail")
        }
    }

    @Test("A request is a connection: onBeforeConnect, createConnState and onConnect run before the handler, onDisconnect after")
    func hooksAroundRequest() async throws {
        let probe = RawProbe()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let id = try await RawProbe.create(server, key: "d")
            let seen = try Self.json(
                await server.fetch(.GET, "/gateway/\(id)/request/x", headers: ["x-rivet-conn-params": #"{"user":"dan"}"#]))
            // The request was among the actor's connections while the handler ran.
            #expect(seen["connections"] == 1)
            #expect(probe.events == ["onBeforeConnect dan", "onConnect dan", "onRequest GET /x", "onDisconnect dan"])
        }
    }

    @Test("A handler running past actionTimeout answers 408 actor.action_timed_out and its connection goes")
    func requestTimeout() async throws {
        let probe = RawProbe()
        try await InProcessServer.with(registry: probe.registry(ActorDefinitionOptions(actionTimeout: .milliseconds(50)))) {
            server in
            let id = try await RawProbe.create(server, key: "e")
            let response = await server.fetch(.GET, "/gateway/\(id)/request/hang")
            #expect(response.status == 408)
            #expect(try Self.json(response)["code"] == "action_timed_out")
            try await waitUntil("the timed-out request's connection has gone") {
                probe.events.contains("onDisconnect -")
            }
        }
    }

    @Test("A request keeps its actor awake: an idle check while the handler runs does not put it to sleep")
    func requestKeepsAwake() async throws {
        let probe = RawProbe()
        let options = ActorDefinitionOptions(actionTimeout: .seconds(2))
        try await InProcessServer.with(registry: probe.registry(options)) { server in
            let id = try await RawProbe.create(server, key: "f")
            let later = ContinuousClock.now + .seconds(3600)
            async let answer = server.fetch(.GET, "/gateway/\(id)/request/hang")
            try await waitUntil("the handler runs") { probe.events.contains("onRequest GET /hang") }
            #expect(await server.core.directory.sleepIdle(now: later) == 0)
            #expect(await answer.status == 408)
            try await waitUntil("the actor may sleep") { await server.core.directory.sleepIdle(now: later) == 1 }
        }
    }

    @Test("The demo counter answers GET /count with its count and any other path with 404")
    func demoCounterRequest() async throws {
        try await InProcessServer.with { server in
            let query = "?rvt-namespace=default&rvt-method=getOrCreate&rvt-key=raw"
            #expect(try Self.json(await server.fetch(.GET, "/gateway/counter/request/count" + query)) == ["count": 0])
            let id = try await RawProbe.create(server, name: "counter", key: "raw")
            _ = try await server.httpAction(actorId: id, "increment", args: [5])
            #expect(try Self.json(await server.fetch(.GET, "/gateway/\(id)/request/count")) == ["count": 5])
            let other = await server.fetch(.GET, "/gateway/\(id)/request/other")
            #expect(other.status == 404)
            #expect(await server.fetch(.POST, "/gateway/\(id)/request/count").status == 404)
        }
    }

    // MARK: WebSocket

    @Test("A raw WebSocket selects rivet, reaches onWebSocket with its /websocket path and user query, and echoes text and binary")
    func webSocketEcho() async throws {
        let probe = RawProbe()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let socket = try await server.connectRaw(
                "/gateway/raw/websocket/chat/room?rvt-namespace=default&rvt-method=getOrCreate&rvt-key=g&v=2",
                params: #"{"user":"gus"}"#)
            try await socket.transport.send(.text("hi"))
            #expect(try await socket.next() == "gus:hi")
            try await socket.transport.send(TransportMessage(kind: .binary, bytes: [1, 2, 3]))
            guard case .message(let reply) = try await socket.nextEvent() else {
                Issue.record("expected a binary reply")
                return
            }
            #expect(reply.kind == .binary && reply.bytes == [3, 2, 1])
            #expect(probe.events == ["onBeforeConnect gus", "onConnect gus", "onWebSocket /websocket/chat/room?v=2"])
        }
    }

    @Test("A socket closed by the client ends the handler's messages and runs onDisconnect; the actor may sleep again")
    func clientCloses() async throws {
        let probe = RawProbe()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let id = try await RawProbe.create(server, key: "h")
            let socket = try await server.connectRaw("/gateway/\(id)/websocket/")
            try await socket.transport.send(.text("ping"))
            #expect(try await socket.next() == "-:ping")
            let instance = try await server.core.directory.instance(id: id)
            #expect(instance.runtime.connections.count == 1)
            await socket.transport.close(code: .normal, reason: "done")
            try await waitUntil("the connection has gone") {
                probe.events.suffix(2) == ["messages ended", "onDisconnect -"]
            }
            #expect(instance.runtime.connections.isEmpty)
            try await waitUntil("the actor may sleep") {
                await server.core.directory.sleepIdle(now: .now + .seconds(3600)) == 1
            }
        }
    }

    @Test("A socket holds its actor awake while open, even after its handler returned")
    func socketKeepsAwake() async throws {
        let probe = RawProbe()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let id = try await RawProbe.create(server, key: "k")
            let socket = try await server.connectRaw("/gateway/\(id)/websocket/deaf")
            try await waitUntil("the handler ran") { probe.events.contains("onWebSocket /websocket/deaf?") }
            #expect(await server.core.directory.sleepIdle(now: .now + .seconds(3600)) == 0)
            await socket.transport.close(code: .normal, reason: "")
            try await waitUntil("the actor may sleep") {
                await server.core.directory.sleepIdle(now: .now + .seconds(3600)) == 1
            }
        }
    }

    @Test("A peer sending more messages than its handler reads is closed with action.too_many_in_flight")
    func unreadMessagesBounded() async throws {
        let probe = RawProbe()
        try await InProcessServer.with(registry: probe.registry(), configure: { $0.maxActionsInFlightPerConnection = 2 }) {
            server in
            let socket = try await server.connectRaw("/gateway/raw/websocket/deaf?rvt-namespace=default&rvt-method=getOrCreate&rvt-key=l")
            try await waitUntil("the handler ran") { probe.events.contains("onWebSocket /websocket/deaf?") }
            for index in 0 ..< 3 { try await socket.transport.send(.text("m\(index)")) }
            let closure = try await socket.closure()
            #expect(closure.code == .internalError)
            #expect(closure.reason == "action.too_many_in_flight")
        }
    }

    @Test("Over a real socket, RivetKit's raw WebSocket offer (rivet, rivet_encoding.bare, params) is accepted with rivet")
    func loopbackWebSocket() async throws {
        try await withActorServer(
            registry: DemoActors.registry, store: try SQLiteActorStore.inMemory(), configuration: ServerHarness.configuration()
        ) { server in
            var configuration = WebSocketClientConfiguration()
            configuration.subprotocols = [
                "rivet", "rivet_encoding.bare", "rivet_conn_params." + HTTPQuery.percentEncode(#"{"user":"lo"}"#),
            ]
            let transport = try await WebSocketClient.connect(
                to: "ws://127.0.0.1:\(server.port)/gateway/counter/websocket/echo?rvt-namespace=default&rvt-method=getOrCreate&rvt-key=lo",
                configuration: configuration)
            let socket = FrameInbox(transport)
            #expect(socket.subprotocol == "rivet")
            try await transport.send(.text("over the wire"))
            #expect(try await socket.next() == "count:0:over the wire")
            await transport.close(code: .normal, reason: "")
        }
    }

    @Test("A socket closed by the handler reaches the client with the code and reason it gave; onDisconnect runs")
    func handlerCloses() async throws {
        let probe = RawProbe()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let id = try await RawProbe.create(server, key: "i")
            let socket = try await server.connectRaw("/gateway/\(id)/websocket/x")
            try await socket.transport.send(.text("close"))
            let closure = try await socket.closure()
            #expect(closure.code == CloseCode(4000))
            #expect(closure.reason == "asked to close")
            try await waitUntil("the connection has gone") { probe.events.contains("onDisconnect -") }

            let failing = try await server.connectRaw("/gateway/\(id)/websocket/x")
            try await failing.transport.send(.text("throw"))
            let failed = try await failing.closure()
            #expect(failed.code == .internalError)
            #expect(failed.reason == "user.socket_failed")
        }
    }

    @Test("connection.disconnect and the actor's destruction close a raw WebSocket")
    func serverSideCloses() async throws {
        let probe = RawProbe()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let id = try await RawProbe.create(server, key: "j")
            let socket = try await server.connectRaw("/gateway/\(id)/websocket/")
            try await socket.transport.send(.text("ping"))
            _ = try await socket.next()
            let instance = try await server.core.directory.instance(id: id)
            instance.runtime.connections.first?.disconnect(reason: "kicked")
            let kicked = try await socket.closure()
            #expect(kicked.code == .normal && kicked.reason == "kicked")

            let second = try await server.connectRaw("/gateway/\(id)/websocket/")
            try await second.transport.send(.text("ping"))
            _ = try await second.next()
            #expect(await server.request(.DELETE, "/actors/\(id)").status == 200)
            #expect(try await second.closure().code == .normal)
        }
    }

    @Test("A refused raw WebSocket closes with 1011 group.code and its handler never runs")
    func refusedWebSocket() async throws {
        let probe = RawProbe()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let socket = try await server.connectRaw("/gateway/raw/websocket/?rvt-namespace=default&rvt-method=get&rvt-key=none")
            let closure = try await socket.closure()
            #expect(closure.code == .internalError)
            #expect(closure.reason == "actor.not_found")
            #expect(!probe.events.contains { $0.hasPrefix("onWebSocket") })
        }
    }

    @Test("The demo counter echoes each text message as count:<N>:<text>, with the count when it arrived")
    func demoCounterWebSocket() async throws {
        try await InProcessServer.with { server in
            let id = try await RawProbe.create(server, name: "counter", key: "ws")
            let socket = try await server.connectRaw("/gateway/\(id)/websocket/echo")
            try await socket.transport.send(.text("hello"))
            #expect(try await socket.next() == "count:0:hello")
            _ = try await server.httpAction(actorId: id, "increment", args: [3])
            try await socket.transport.send(.text("again"))
            #expect(try await socket.next() == "count:3:again")
        }
    }
}
