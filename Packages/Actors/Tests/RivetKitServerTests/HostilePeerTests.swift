import Foundation
import GRDB
import NIOHTTP1
import RivetKit
import RivetKitServer
import RpcTransportNIO
import Synchronization
import Testing
import RpcWire

/// What a hostile or careless peer sends the actor server, as raw frames and HTTP requests:
/// none of it may trap the process, cross keys or make the server hold more than its limits.
@Suite("The actor server holds against hostile and careless peers")
struct HostilePeerTests {
    // MARK: Helpers

    static func withServer(
        _ configuration: ActorServerConfiguration = ServerHarness.configuration(),
        registry: ActorRegistry = DemoActors.registry,
        store: (any ActorStore)? = nil,
        _ body: (ActorServer, HTTPClient) async throws -> Void
    ) async throws {
        let store = try store ?? SQLiteActorStore.inMemory()
        try await withActorServer(registry: registry, store: store, configuration: configuration) { server in
            let client = try HTTPClient(baseURL: server.endpoint)
            do {
                try await body(server, client)
            } catch {
                await client.close()
                throw error
            }
            await client.close()
        }
    }

    /// `PUT` (or `POST`) `/actors` with a raw JSON body; the status and the parsed answer.
    static func actors(
        _ client: HTTPClient, _ method: HTTPMethod = .PUT, namespace: String = "default", body: String
    ) async throws -> (status: Int, body: JSONValue) {
        let response = try await client.execute(
            HTTPClientRequest(method: method, path: "/actors?namespace=\(namespace)", json: body))
        return (response.status, try JSONValue(parsing: response.body))
    }

    /// The `actor_id` of an `/actors` answer.
    static func actorId(_ answer: (status: Int, body: JSONValue)) throws -> String {
        guard case .string(let id)? = answer.body["actor"]?["actor_id"] else { throw ServerHarness.Unexpected() }
        return id
    }

    /// The id of the counter the query gateway connects to for `query`, after its `Init`.
    static func gatewayActor(_ server: ActorServer, query: String) async throws -> (FrameInbox, String) {
        let socket = try await ServerHarness.connect(server, "/gateway/counter/connect?rvt-method=getOrCreate&\(query)")
        guard case .initialize(let actorId, _) = try await socket.nextMessage() else { throw ServerHarness.Unexpected() }
        return (socket, actorId)
    }

    /// The error of the next frame, with its action id.
    static func nextError(_ socket: FrameInbox) async throws -> (ActorError, UInt64?) {
        let message = try await socket.nextMessage()
        guard case .error(let error, let actionId) = message else {
            Issue.record("expected an Error frame, got \(message)")
            throw ServerHarness.Unexpected()
        }
        return (error, actionId)
    }

    /// The CBOR of a negative bignum (tag 3) of magnitude 2^64 - 1: -2^64.
    static let negativeBignum: [UInt8] = [0xC3, 0x48] + Array(repeating: 0xFF, count: 8)

    // MARK: Remote traps

    @Test("A creation input holding the most negative bignum is read, through PUT /actors and rvt-input, without trapping")
    func negativeBignumInput() async throws {
        #expect(try RivetCBOR.decode(Self.negativeBignum) == .string("-18446744073709551616"))
        #expect(try RivetCBOR.decode([0xC3, 0x48, 0x7F] + Array(repeating: 0xFF, count: 7)) == .integer(.min))
        try await Self.withServer { server, client in
            let input = Base64.encode(Self.negativeBignum, padded: true)
            let created = try await Self.actors(client, body: #"{"name":"counter","key":"big","input":"\#(input)"}"#)
            #expect(created.status == 200)
            let (socket, _) = try await Self.gatewayActor(
                server, query: "rvt-key=gw&rvt-input=\(Base64.encode(Self.negativeBignum, urlSafe: true))")
            try await socket.send(.actionRequest(id: 0, name: "getCount", args: []))
            #expect(try await socket.nextMessage() == .actionResponse(id: 0, output: 0))
            await socket.transport.close(code: .normal, reason: "Disposed")
        }
    }

    @Test("An increment past Int's range fails that action with user.overflow; the count, the connection and the server stay")
    func counterOverflow() async throws {
        try await Self.withServer { server, _ in
            let (socket, _) = try await ServerHarness.counter(server, key: "overflow")
            let (other, _) = try await ServerHarness.counter(server, key: "bystander")
            try await socket.transport.send(
                .text(#"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","0"],"name":"increment","args":[9223372036854775807]}}}"#))
            #expect(try await socket.nextMessage() == .actionResponse(id: 0, output: .integer(.max)))
            try await socket.send(.actionRequest(id: 1, name: "increment", args: [1]))
            let (error, actionId) = try await Self.nextError(socket)
            #expect(error.group == "user")
            #expect(error.code == "overflow")
            #expect(actionId == 1)
            try await socket.send(.actionRequest(id: 2, name: "increment", args: [.integer(.min)]))
            #expect(try await socket.nextMessage() == .actionResponse(id: 2, output: -1))
            try await socket.send(.actionRequest(id: 3, name: "increment", args: [.integer(.min + 1)]))
            #expect(try await socket.nextMessage() == .actionResponse(id: 3, output: .integer(.min)))
            try await socket.send(.actionRequest(id: 4, name: "increment", args: [-1]))
            #expect(try await Self.nextError(socket).0.code == "overflow")
            try await socket.send(.actionRequest(id: 5, name: "getCount", args: []))
            #expect(try await socket.nextMessage() == .actionResponse(id: 5, output: .integer(.min)))
            try await other.send(.actionRequest(id: 0, name: "increment", args: [1]))
            #expect(try await other.nextMessage() == .actionResponse(id: 0, output: 1))
            await socket.transport.close(code: .normal, reason: "Disposed")
            await other.transport.close(code: .normal, reason: "Disposed")
        }
    }

    @Test("Arguments that are not the action's declared types are refused with request.invalid before the body runs")
    func argumentsValidated() async throws {
        try await Self.withServer { server, _ in
            let (socket, _) = try await ServerHarness.counter(server, key: "types")
            let frames = [
                #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","0"],"name":"increment","args":[9223372036854775808]}}}"#,
                #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","1"],"name":"increment","args":[1e300]}}}"#,
                #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","2"],"name":"increment","args":[1.5]}}}"#,
                #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","3"],"name":"increment","args":[["$BigInt","-99999999999999999999"]]}}}"#,
                #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","4"],"name":"increment","args":[1,2]}}}"#,
            ]
            for (index, frame) in frames.enumerated() {
                try await socket.transport.send(.text(frame))
                let (error, actionId) = try await Self.nextError(socket)
                #expect(error.group == "request", "frame \(index)")
                #expect(actionId == UInt64(index))
            }
            try await socket.send(.actionRequest(id: 9, name: "getCount", args: []))
            #expect(try await socket.nextMessage() == .actionResponse(id: 9, output: 0))
            await socket.transport.close(code: .normal, reason: "Disposed")
        }
    }

    // MARK: Poisoned store

    @Test("An actor whose saved state does not decode is reported and refused with actor.state_unreadable; the others serve on")
    func poisonedState() async throws {
        let store = try SQLiteActorStore.inMemory()
        _ = try await store.insert(
            StoredActor(id: "poisoned", namespace: "default", name: "counter", key: ["bad"], state: ["count": "many"], createdAt: 0))
        _ = try await store.insert(
            StoredActor(id: "huge", namespace: "default", name: "counter", key: ["huge"], state: ["count": 1e300], createdAt: 0))
        let reports = Mutex<[String]>([])
        var configuration = ServerHarness.configuration()
        configuration.reportProblem = { problem in reports.withLock { $0.append(problem) } }
        try await Self.withServer(configuration, store: store) { server, client in
            for key in ["bad", "huge"] {
                let socket = try await ServerHarness.connect(server, "/gateway/counter/connect?rvt-method=getOrCreate&rvt-key=\(key)")
                #expect(try await socket.closure().reason == "actor.state_unreadable")
            }
            let http = try await ServerHarness.httpAction(client, actorId: "poisoned", "increment", args: [1])
            #expect(http.body["code"] == "state_unreadable")
            #expect(http.status == 500)
            let (good, _) = try await ServerHarness.counter(server, key: "good")
            try await good.send(.actionRequest(id: 0, name: "increment", args: [2]))
            #expect(try await good.nextMessage() == .actionResponse(id: 0, output: 2))
            await good.transport.close(code: .normal, reason: "Disposed")
        }
        let reported = reports.withLock { $0 }
        #expect(reported.count == 2)
        #expect(reported.contains { $0.contains("poisoned") && $0.contains("state_unreadable") })
        #expect(reported.contains { $0.contains("huge") })
    }

    // MARK: Keys

    @Test("The key [\"\"] is one actor through PUT /actors, GET /actors and the query gateway, and not the empty key")
    func emptyPartKey() async throws {
        try await Self.withServer { server, client in
            let viaPut = try Self.actorId(try await Self.actors(client, body: #"{"name":"counter","key":"\\0"}"#))
            let (socket, viaGateway) = try await Self.gatewayActor(server, query: "rvt-key=")
            #expect(viaGateway == viaPut)
            let emptyKey = try Self.actorId(try await Self.actors(client, body: #"{"name":"counter","key":"/"}"#))
            let (bare, viaBareGateway) = try await Self.gatewayActor(server, query: "rvt-namespace=default")
            #expect(viaBareGateway == emptyKey)
            #expect(emptyKey != viaPut)
            let listed = try await client.execute(HTTPClientRequest(method: .GET, path: "/actors?name=counter&key=%5C0"))
            #expect(try JSONValue(parsing: listed.body)["actors"]?[0]?["actor_id"] == .string(viaPut))
            await socket.transport.close(code: .normal, reason: "Disposed")
            await bare.transport.close(code: .normal, reason: "Disposed")
        }
    }

    @Test("Keys, names and namespaces that differ only after a NUL, or in separators and escapes, are different actors")
    func keysDifferWhateverTheirCharacters() async throws {
        try await Self.withServer { server, client in
            let keys: [[String]] = [
                ["a\u{0}x"], ["a\u{0}y"], ["a"], ["a", "b"], ["a/b"], ["a,b"], ["a\\", "b"], ["a\\b"], [""], ["", ""], ["\u{0}"],
            ]
            var ids: [String] = []
            for key in keys {
                let body: JSONValue = ["name": "counter", "key": .string(ActorKey.serialize(key))]
                ids.append(try Self.actorId(try await Self.actors(client, body: body.description)))
            }
            #expect(Set(ids).count == keys.count)
            // The query gateway reaches the same actor for every one of them.
            for (key, id) in zip(keys, ids) {
                let (socket, viaGateway) = try await Self.gatewayActor(server, query: "rvt-key=\(ActorKey.queryValue(key) ?? "")")
                #expect(viaGateway == id, "\(key)")
                await socket.transport.close(code: .normal, reason: "Disposed")
            }
            // A name or namespace cut at a NUL names nothing.
            let cutName = try await client.execute(HTTPClientRequest(method: .GET, path: "/actors?name=counter%00x&key=a"))
            #expect(try JSONValue(parsing: cutName.body)["actors"] == [])
            let cutNamespace = try await client.execute(
                HTTPClientRequest(method: .GET, path: "/actors?namespace=default%00x&name=counter&key=a"))
            #expect(try JSONValue(parsing: cutNamespace.body)["actors"] == [])
            let byId = try await client.execute(HTTPClientRequest(method: .GET, path: "/actors?actor_ids=\(ids[2])%00x"))
            #expect(try JSONValue(parsing: byId.body)["actors"] == [])
        }
    }

    @Test("Malformed keys are refused with actor.invalid_key over PUT, POST, GET and the query gateway")
    func malformedKeys() async throws {
        try await Self.withServer { server, client in
            for key in [#""a\\x""#, #""a\\""#, #""\\0a""#, #""a//b""#, #""a/""#, "7"] {
                for method in [HTTPMethod.PUT, .POST] {
                    let answer = try await Self.actors(client, method, body: #"{"name":"counter","key":\#(key)}"#)
                    #expect(answer.status == 400, "\(key)")
                    #expect(answer.body["code"] == "invalid_key", "\(key)")
                }
            }
            let listed = try await client.execute(HTTPClientRequest(method: .GET, path: "/actors?name=counter&key=a%5Cx"))
            #expect(RivetMessageCodec.decodeErrorBody(listed.body)?.code == "invalid_key")
            for raw in ["%ZZ", "a%2", "%FF"] {
                let socket = try await ServerHarness.connect(server, "/gateway/counter/connect?rvt-method=getOrCreate&rvt-key=\(raw)")
                #expect(try await socket.closure().reason == "actor.invalid_key", "\(raw)")
            }
        }
    }

    @Test("POST /actors without a key creates a new actor every time, as RivetKit's manager does")
    func createWithoutKey() async throws {
        try await Self.withServer { _, client in
            let first = try await Self.actors(client, .POST, body: #"{"name":"counter"}"#)
            let second = try await Self.actors(client, .POST, body: #"{"name":"counter","key":null}"#)
            #expect(first.status == 200)
            #expect(second.status == 200)
            #expect(try Self.actorId(first) != Self.actorId(second))
            let withKey = try await Self.actors(client, .POST, body: #"{"name":"counter","key":"k"}"#)
            #expect(withKey.status == 200)
            let again = try await Self.actors(client, .POST, body: #"{"name":"counter","key":"k"}"#)
            #expect(again.body["code"] == "duplicate_key")
        }
    }

    // MARK: Bounded memory

    @Test("Subscriptions past maxSubscriptionsPerConnection or its byte budget get connection.too_many_subscriptions; the connection stays")
    func subscriptionLimits() async throws {
        var configuration = ServerHarness.configuration()
        configuration.maxSubscriptionsPerConnection = 3
        configuration.maxSubscriptionBytesPerConnection = 40
        try await Self.withServer(configuration) { server, _ in
            let (socket, _) = try await ServerHarness.counter(server, key: "subs")
            for name in ["a", "b", "newCount", "b"] {
                try await socket.send(.subscriptionRequest(eventName: name, subscribe: true))
            }
            try await socket.send(.subscriptionRequest(eventName: "d", subscribe: true))
            let (error, actionId) = try await Self.nextError(socket)
            #expect(error.group == "connection")
            #expect(error.code == "too_many_subscriptions")
            #expect(actionId == nil)
            // Unsubscribing frees a place, which a long name still cannot take.
            try await socket.send(.subscriptionRequest(eventName: "a", subscribe: false))
            try await socket.send(.subscriptionRequest(eventName: String(repeating: "x", count: 40), subscribe: true))
            #expect(try await Self.nextError(socket).0.code == "too_many_subscriptions")
            try await socket.send(.subscriptionRequest(eventName: "d", subscribe: true))
            try await socket.send(.actionRequest(id: 0, name: "increment", args: [1]))
            #expect(try await socket.nextMessage() == .event(name: "newCount", args: [1]))
            #expect(try await socket.nextMessage() == .actionResponse(id: 0, output: 1))
            await socket.transport.close(code: .normal, reason: "Disposed")
        }
    }

    @Test("Actions past maxPendingActionBytesPerConnection get action.too_many_pending_bytes; the connection stays")
    func pendingActionBytes() async throws {
        let gate = ServerLimitTests.Gate()
        var registry = DemoActors.registry
        registry.register(
            ActorDefinition("gated", initialState: 0).action("gate", rawArguments: { (context: inout ActorContext<Int>, _: [JSONValue]) in
                await gate.pass()
                context.state += 1
                return context.state
            }))
        var configuration = ServerHarness.configuration()
        configuration.maxPendingActionBytesPerConnection = 1500
        try await Self.withServer(configuration, registry: registry) { server, _ in
            // Opened however the body ends, so that the server can stop.
            defer { gate.open() }
            let socket = try await ServerHarness.connect(server, "/gateway/gated/connect?rvt-method=getOrCreate&rvt-key=g")
            _ = try await socket.nextMessage()
            let payload = JSONValue.string(String(repeating: "p", count: 1000))
            for id in 0 ..< 2 {
                try await socket.send(.actionRequest(id: UInt64(id), name: "gate", args: [payload]))
            }
            let (error, actionId) = try await Self.nextError(socket)
            #expect(error.code == "too_many_pending_bytes")
            #expect(actionId == 1)
            gate.open()
            #expect(try await socket.nextMessage() == .actionResponse(id: 0, output: 1))
            try await socket.send(.actionRequest(id: 2, name: "gate", args: [payload]))
            #expect(try await socket.nextMessage() == .actionResponse(id: 2, output: 2))
            await socket.transport.close(code: .normal, reason: "Disposed")
        }
    }

    // MARK: Large answers

    @Test("An answer or event over maxMessageSize fails that action with message.outgoing_too_long; the connection goes on")
    func largeAnswers() async throws {
        var registry = DemoActors.registry
        registry.register(
            ActorDefinition("big", initialState: 0)
                .action("answer") { (_: inout ActorContext<Int>, size: Int) in String(repeating: "a", count: size) }
                .action("shout") { (context: inout ActorContext<Int>, size: Int) in
                    context.state += 1
                    try context.broadcast("loud", String(repeating: "e", count: size))
                    return context.state
                })
        var configuration = ServerHarness.configuration()
        configuration.maxMessageSize = 4096
        try await Self.withServer(configuration, registry: registry) { server, client in
            let socket = try await ServerHarness.connect(server, "/gateway/big/connect?rvt-method=getOrCreate&rvt-key=b")
            guard case .initialize(let actorId, _) = try await socket.nextMessage() else { throw ServerHarness.Unexpected() }
            try await socket.send(.subscriptionRequest(eventName: "loud", subscribe: true))
            try await socket.send(.actionRequest(id: 0, name: "answer", args: [10_000]))
            let (error, actionId) = try await Self.nextError(socket)
            #expect(error.group == "message")
            #expect(error.code == "outgoing_too_long")
            #expect(actionId == 0)
            try await socket.send(.actionRequest(id: 1, name: "answer", args: [10]))
            #expect(try await socket.nextMessage() == .actionResponse(id: 1, output: "aaaaaaaaaa"))
            try await socket.send(.actionRequest(id: 2, name: "shout", args: [10_000]))
            let (eventError, eventActionId) = try await Self.nextError(socket)
            #expect(eventError.code == "outgoing_too_long")
            #expect(eventActionId == 2)
            try await socket.send(.actionRequest(id: 3, name: "shout", args: [1]))
            #expect(try await socket.nextMessage() == .event(name: "loud", args: ["e"]))
            // The failed shout changed nothing: this is the first counted one.
            #expect(try await socket.nextMessage() == .actionResponse(id: 3, output: 1))
            let http = try await ServerHarness.httpAction(client, actorId: actorId, "answer", args: [10_000])
            #expect(http.status == 200)
            await socket.transport.close(code: .normal, reason: "Disposed")
        }
    }

    @Test("Requests for more answers in one read than maxPendingBytesPerConnection get connection.outbound_full past it; the connection goes on")
    func answersOwedInOneRead() async throws {
        var registry = DemoActors.registry
        registry.register(
            ActorDefinition("big", initialState: 0)
                .action("answer") { (_: inout ActorContext<Int>, size: Int) in String(repeating: "a", count: size) })
        var configuration = ServerHarness.configuration()
        configuration.maxPendingBytesPerConnection = 64 * 1024
        try await Self.withServer(configuration, registry: registry) { server, _ in
            let socket = try await ServerHarness.connect(server, "/gateway/big/connect?rvt-method=getOrCreate&rvt-key=b")
            _ = try await socket.nextMessage()
            // Queued at once, they leave in one write and are read in one burst.
            for id in 0 ..< 50 {
                try socket.transport.enqueue(
                    .text(RivetMessageCodec.encode(ClientMessage.actionRequest(id: UInt64(id), name: "answer", args: [20_000]))))
            }
            var answered = 0
            var refused = 0
            for _ in 0 ..< 50 {
                switch try await socket.nextMessage() {
                case .actionResponse: answered += 1
                case .error(let error, _) where error.code == "outbound_full": refused += 1
                case let other: Issue.record("unexpected \(other)")
                }
            }
            #expect(answered >= 3)
            #expect(refused > 0)
            try await socket.send(.actionRequest(id: 99, name: "answer", args: [3]))
            #expect(try await socket.nextMessage() == .actionResponse(id: 99, output: "aaa"))
            await socket.transport.close(code: .normal, reason: "Disposed")
        }
    }

    // MARK: Slow requests

    @Test("An action request whose chunked body drips a byte every 100 ms is answered 408 at requestReadTimeout and closed")
    func drippingBody() async throws {
        var configuration = ServerHarness.configuration()
        configuration.requestReadTimeout = .milliseconds(400)
        try await Self.withServer(configuration) { server, client in
            let actorId = try await ServerHarness.getOrCreate(client, name: "counter", key: ["drip"])
            let socket = try RawSocket.connect(port: server.port)
            socket.write(
                "POST /gateway/\(actorId)/action/increment HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            // Dripped whole, this body would take 30 s.
            let body = "12c\r\n" + String(repeating: " ", count: 288) + #"{"args":[1]}"# + "\r\n0\r\n\r\n"
            let drip = Task {
                for character in body {
                    guard !Task.isCancelled, socket.write(String(character)) else { return }
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
            defer { drip.cancel() }
            let answer = try await socket.readUntilClosed(within: .seconds(6))
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
            #expect(try await ServerHarness.httpAction(client, actorId: actorId, "getCount").body == ["output": 0])
        }
    }

    @Test("An action that would leave a state over maxStateSize fails with actor.state_too_large and the state stays; the demo chat refuses long texts")
    func stateSize() async throws {
        var registry = DemoActors.registry
        registry.register(
            ActorDefinition("hoard", initialState: [String]())
                .action("add") { (context: inout ActorContext<[String]>, size: Int) in
                    context.state.append(String(repeating: "h", count: size))
                    return context.state.count
                })
        var configuration = ServerHarness.configuration()
        configuration.maxStateSize = 10_000
        try await Self.withServer(configuration, registry: registry) { server, client in
            let socket = try await ServerHarness.connect(server, "/gateway/hoard/connect?rvt-method=getOrCreate&rvt-key=h")
            guard case .initialize = try await socket.nextMessage() else { throw ServerHarness.Unexpected() }
            try await socket.send(.actionRequest(id: 0, name: "add", args: [6_000]))
            #expect(try await socket.nextMessage() == .actionResponse(id: 0, output: 1))
            try await socket.send(.actionRequest(id: 1, name: "add", args: [6_000]))
            let (error, actionId) = try await Self.nextError(socket)
            #expect(error.code == "state_too_large")
            #expect(actionId == 1)
            try await socket.send(.actionRequest(id: 2, name: "add", args: [10]))
            #expect(try await socket.nextMessage() == .actionResponse(id: 2, output: 2))
            let chatId = try await ServerHarness.getOrCreate(client, name: "chat", key: ["room"])
            let long = try await ServerHarness.httpAction(
                client, actorId: chatId, "send", args: ["me", .string(String(repeating: "t", count: DemoActors.chatTextLimit + 1))])
            #expect(long.body["code"] == "message_too_long")
            await socket.transport.close(code: .normal, reason: "Disposed")
        }
    }

    @Test("A store file holding a state that is not JSON, or a count at Int.max, keeps every other actor serving across restarts")
    func poisonedStoreFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("actors-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        var configuration = ServerHarness.configuration()
        configuration.reportProblem = { _ in }
        var brokenId = ""
        try await Self.withServer(configuration, store: try SQLiteActorStore(path: path)) { _, client in
            brokenId = try await ServerHarness.getOrCreate(client, name: "counter", key: ["broken"])
            let full = try await ServerHarness.getOrCreate(client, name: "counter", key: ["full"])
            #expect(try await ServerHarness.httpAction(client, actorId: full, "increment", args: [.integer(.max)]).status == 200)
        }
        let database = try DatabaseQueue(path: path)
        let poisoned = brokenId
        try await database.write { db in
            try db.execute(sql: "UPDATE actor SET state = 'not json' WHERE id = ?", arguments: [poisoned])
            try db.execute(sql: "UPDATE actor SET createdAt = 'never' WHERE key = 'full'")
        }
        try database.close()
        for _ in 0 ..< 2 {
            try await Self.withServer(configuration, store: try SQLiteActorStore(path: path)) { server, client in
                let broken = try await ServerHarness.connect(server, "/gateway/counter/connect?rvt-method=getOrCreate&rvt-key=broken")
                #expect(try await broken.closure().reason == "actor.state_unreadable")
                let (full, _) = try await ServerHarness.counter(server, key: "full")
                try await full.send(.actionRequest(id: 0, name: "increment", args: [1]))
                #expect(try await Self.nextError(full).0.code == "overflow")
                try await full.send(.actionRequest(id: 1, name: "getCount", args: []))
                #expect(try await full.nextMessage() == .actionResponse(id: 1, output: .integer(.max)))
                let fresh = try await ServerHarness.getOrCreate(client, name: "counter", key: ["fresh"])
                #expect(try await ServerHarness.httpAction(client, actorId: fresh, "increment", args: [1]).status == 200)
                await full.transport.close(code: .normal, reason: "Disposed")
            }
        }
    }
}
