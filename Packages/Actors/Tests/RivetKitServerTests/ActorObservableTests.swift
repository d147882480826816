import RivetKit
import RivetKitServer
import RpcDoTesting
import Testing

@Suite("ActorObservable, the platform-neutral core of @Actor")
@MainActor
struct ActorObservableTests {
    /// The demo actors and one that broadcasts events of 0 to 3 arguments.
    static var registry: ActorRegistry {
        var registry = DemoActors.registry
        registry.register(
            ActorDefinition("signals", initialState: 0)
                .action("emit") { (context: inout ActorContext<Int>, name: String, count: Int) in
                    let args: [any Encodable] = Array([1.5, 2.5, 3.5].prefix(count))
                    try context.broadcast(name, args: args)
                    return count
                }
                .action("triple") { context in
                    try context.broadcast("triple", "a", 2, true)
                    return 3
                })
        return registry
    }

    static func withServer(_ body: @MainActor (RivetKitClient) async throws -> Void) async throws {
        try await withServerAndClient { _, client in try await body(client) }
    }

    static func withServerAndClient(_ body: @MainActor (InProcessServer, RivetKitClient) async throws -> Void) async throws {
        try await InProcessServer.with(registry: registry) { server in
            let client = server.client()
            try await body(server, client)
            await client.close()
        }
    }

    @Test("Two observables on the same key see each other's events; send is fire and forget; errors arrive typed")
    func counterExample() async throws {
        try await Self.withServer { client in
            let first = ActorObservable(client: client, options: ActorOptions(name: "counter", key: ["my-counter"]))
            let second = ActorObservable(client: client, options: ActorOptions(name: "counter", key: ["my-counter"]))
            #expect(first.hash == second.hash)
            let counts = second.events("newCount", as: Int.self)
            try await waitUntil("the condition") { first.isConnected && second.isConnected }
            #expect(first.connection === second.connection)
            #expect(client.connectionUsers(hash: first.hash) == 2)
            let count: Int = try await first.action("increment", 1)
            #expect(count == 1)
            var iterator = counts.makeAsyncIterator()
            #expect(await iterator.next() == 1)
            first.send("increment", 2)
            #expect(await iterator.next() == 3)
            first.send("fail")
            let error = await #expect(throws: ActorError.self) { let _: Int = try await first.action("fail") }
            #expect(error?.code == "test_error")
            #expect(first.error == nil)
            let total: Int = try await second.action("getCount")
            #expect(total == 3)
            first.release()
            second.release()
            try await waitUntil("the condition") { client.connectionUsers(hash: first.hash) == 0 }
        }
    }

    @Test("Events of 0 to 3 arguments decode by position; a wrong arity is a client.decode_error")
    func eventArity() async throws {
        try await Self.withServer { client in
            let signals = ActorObservable(client: client, options: ActorOptions(name: "signals", key: ["s"]))
            let ticks = signals.events("tick", as: Void.self)
            let singles = signals.events("one", as: Double.self)
            let pairs = signals.events("move", as: (Double, Double).self)
            let triples = signals.events("triple", as: (String, Int, Bool).self)
            try await waitUntil("the condition") { signals.isConnected }
            let _: Int = try await signals.action("emit", "tick", 0)
            var tickIterator = ticks.makeAsyncIterator()
            #expect(await tickIterator.next() != nil)
            let _: Int = try await signals.action("emit", "one", 1)
            var singleIterator = singles.makeAsyncIterator()
            #expect(await singleIterator.next() == 1.5)
            let _: Int = try await signals.action("emit", "move", 2)
            var pairIterator = pairs.makeAsyncIterator()
            let pair = await pairIterator.next()
            #expect(pair?.0 == 1.5 && pair?.1 == 2.5)
            let _: Int = try await signals.action("triple")
            var tripleIterator = triples.makeAsyncIterator()
            let triple = await tripleIterator.next()
            #expect(triple?.0 == "a" && triple?.1 == 2 && triple?.2 == true)
            #expect(signals.error == nil)
            // "move" with three arguments: the pair stream skips it and reports the arity.
            let _: Int = try await signals.action("emit", "move", 3)
            try await waitUntil("the condition") { signals.error != nil }
            #expect(signals.error?.group == "client")
            #expect(signals.error?.code == "decode_error")
            signals.release()
        }
    }

    @Test("enabled false disposes the connection and resets to idle, closing its socket; true reconnects")
    func enabledLifecycle() async throws {
        try await Self.withServerAndClient { server, client in
            let chat = ActorObservable(client: client, options: ActorOptions(name: "chat", key: ["room-1"]))
            try await waitUntil("the condition") { chat.isConnected }
            let hash = chat.hash
            chat.setEnabled(false)
            #expect(chat.connStatus == .idle)
            #expect(chat.connection == nil)
            #expect(chat.handle == nil)
            try await waitUntil("the condition") { client.connectionUsers(hash: hash) == 0 }
            // No socket is left open: the server sees no connection at all.
            try await waitUntil("the condition") { server.openCount == 0 }
            let disabled = await #expect(throws: ActorError.self) { let _: Bool = try await chat.action("send", "a", "b") }
            #expect(disabled?.code == "not_connected")
            chat.setEnabled(true)
            try await waitUntil("the condition") { chat.isConnected }
            #expect(chat.hash == hash)
            let sent: Bool = try await chat.action("send", "ann", "hello")
            #expect(sent)
            let history: [DemoActors.ChatMessage] = try await chat.action("history")
            #expect(history == [DemoActors.ChatMessage(from: "ann", text: "hello")])
            chat.release()
            try await waitUntil("the condition") { client.connectionUsers(hash: hash) == 0 }
            try await waitUntil("the condition") { server.openCount == 0 }
        }
    }

    @Test("A configuration error is reported as client.config_error")
    func configError() async throws {
        let client = RivetKitClient(ClientConfig(endpoint: "http://h/?q=1", token: nil, namespace: nil))
        let actor = ActorObservable(client: client, options: ActorOptions(name: "counter", key: ["x"]))
        #expect(actor.error?.code == "config_error")
        actor.release()
        await client.close()
    }
}
