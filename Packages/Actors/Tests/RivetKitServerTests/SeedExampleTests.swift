import RivetKit
import RivetKitServer
import RpcDoTesting
import Testing

#if canImport(SwiftUI)
import SwiftUI

// Seed 002's SwiftUI lines as a new user writes them; compiled where SwiftUI exists.

/// `.rivetKit(_:)` with an endpoint string or a full configuration.
struct SeedContentView: View {
    var body: some View {
        VStack {
            SeedCounterView()
                .rivetKit("https://example.com/api/rivet")
            SeedCounterView()
                .rivetKit(ClientConfig(endpoint: "https://example.com/api/rivet", token: "token", namespace: "default"))
        }
    }
}

/// `@Actor`, `send`, the `onActorEvent` overloads, `onActorError` and `events(_:as:)`.
struct SeedCounterView: View {
    @Actor("counter", key: ["my-counter"]) var counter
    @State private var count = 0
    @State private var messages: [SeedExampleTests.Message] = []
    @State private var alert: String?

    var body: some View {
        VStack {
            Text("\(count) \(counter.connStatus.rawValue) \(counter.isConnected)")
            Button("+") {
                counter.send("increment", 1)
            }
        }
        .onActorEvent(counter, "tick") { () in }
        .onActorEvent(counter, "newCount") { (count: Int) in
            self.count = count
        }
        .onActorEvent(counter, "move") { (x: Double, y: Double) in _ = (x, y) }
        .onActorEvent(counter, "triple") { (a: String, b: Int, c: Bool) in _ = (a, b, c) }
        .onActorEvent(counter, "event") { (args: [JSONValue]) in _ = args }
        .onActorError(counter) { error in
            alert = error.message
        }
        .task {
            for await message in counter.events("message", as: SeedExampleTests.Message.self) {
                messages.append(message)
            }
        }
    }
}

/// The `enabled`-driven lifecycle. The seed's `@Actor("chat", key: "room-1", enabled: isEnabled)
/// var chat` beside `@State private var isEnabled` is not Swift (a property's initial value
/// cannot read another property of the instance): the view that owns the toggle hands
/// `isEnabled` to the one that holds the actor.
struct SeedChatRoom: View {
    @State private var isEnabled = true

    var body: some View {
        VStack {
            Toggle("Connected", isOn: $isEnabled)
            SeedChatView(isEnabled: isEnabled)
        }
    }
}

/// Holds the chat actor, enabled as its parent says.
struct SeedChatView: View {
    @Actor var chat: ActorObservable

    init(isEnabled: Bool) {
        _chat = Actor("chat", key: "room-1", enabled: isEnabled)
    }

    var body: some View {
        Text(chat.connStatus.rawValue)
    }
}
#endif

@Suite("Seed 002's client examples, as written, against the in-process server")
@MainActor
struct SeedExampleTests {
    /// The seed's `User`.
    struct User: Codable, Sendable, Equatable {
        var id: String
        var name: String
    }

    /// The seed's `Message`.
    struct Message: Codable, Sendable, Equatable {
        var from: String
        var text: String
    }

    /// The demo actors, the event-emitting one, and one with the seed's `getUser` and `message`.
    static var registry: ActorRegistry {
        var registry = ActorObservableTests.registry
        registry.register(
            ActorDefinition("profiles", initialState: 0)
                .action("getUser") { (_: inout ActorContext<Int>, userId: String) in
                    User(id: userId, name: "Ann")
                }
                .action("post") { (context: inout ActorContext<Int>, from: String, text: String) in
                    try context.broadcast("message", Message(from: from, text: text))
                    return true
                }
                .action("sum") { (_: inout ActorContext<Int>, a: Int, b: Int, c: Int) in a + b + c })
        return registry
    }

    @Test("Configuration: an endpoint with a path, a full ClientConfig, and the client's error as the seed builds it")
    func configuration() throws {
        let config = ClientConfig(endpoint: "https://example.com/api/rivet", token: "token", namespace: "default")
        let resolved = try config.resolved()
        #expect(resolved.endpoint == "https://example.com/api/rivet")
        #expect(resolved.token == "token")
        #expect(resolved.namespace == "default")
        let error = ActorError(group: "client", code: "config_error", message: "bad endpoint")
        #expect(error.message == "bad endpoint")
        #expect(ActorConnStatus(rawValue: "connecting") == .connecting)
        #expect([ActorConnStatus.idle, .connecting, .connected, .disconnected].map(\.rawValue)
            == ["idle", "connecting", "connected", "disconnected"])
    }

    @Test("The exposed properties, actions with 0 to 3 arguments or an array, and send")
    func propertiesActionsAndSend() async throws {
        try await InProcessServer.with(registry: Self.registry) { server in
            let client = server.client()
            let actor = ActorObservable(client: client, options: ActorOptions(name: "counter", key: ["my-counter"]))
            #expect(actor.opts.key == ["my-counter"])
            #expect(actor.hash == ActorOptions(name: "counter", key: "my-counter").hash)
            #expect(actor.handle != nil)
            try await waitUntil("the actor to connect") { actor.isConnected }
            #expect(actor.connStatus == .connected)
            #expect(actor.connection != nil)
            #expect(actor.error == nil)

            let count: Int = try await actor.action("getCount")
            #expect(count == 0)
            actor.send("increment", 1)
            try await waitUntil("the send to count") {
                let now: Int = try await actor.action("getCount")
                return now == 1
            }
            let total: Int = try await actor.action("increment", args: [2])
            #expect(total == 3)

            let profiles = ActorObservable(client: client, options: ActorOptions(name: "profiles", key: "p"))
            let userId = "u-1"
            let user: User = try await profiles.action("getUser", userId)
            #expect(user == User(id: "u-1", name: "Ann"))
            let posted: Bool = try await profiles.action("post", "ann", "hi")
            #expect(posted)
            let sum: Int = try await profiles.action("sum", 1, 2, 3)
            #expect(sum == 6)
            profiles.send("post", "ann", "again")
            profiles.send("sum", 1, 2, 3)
            profiles.send("getUser", args: ["u-2"])
            await profiles.close()
            await actor.close()
            await client.close()
        }
    }

    @Test("events(_:as:) as an AsyncSequence, for the seed's Message and for 0, 2 and 3 positional arguments")
    func events() async throws {
        try await InProcessServer.with(registry: Self.registry) { server in
            let client = server.client()
            let actor = ActorObservable(client: client, options: ActorOptions(name: "profiles", key: "events"))
            let signals = ActorObservable(client: client, options: ActorOptions(name: "signals", key: "events"))
            let stream = actor.events("message", as: Message.self)
            let ticks = signals.events("tick", as: Void.self)
            let moves = signals.events("move", as: (Double, Double).self)
            let triples = signals.events("triple", as: (String, Int, Bool).self)
            try await waitUntil("both actors to connect") { actor.isConnected && signals.isConnected }

            let _: Bool = try await actor.action("post", "ann", "hello")
            var messages: [Message] = []
            for await message in stream {
                messages.append(message)
                break
            }
            #expect(messages == [Message(from: "ann", text: "hello")])

            let _: Int = try await signals.action("emit", "tick", 0)
            var tick = ticks.makeAsyncIterator()
            #expect(await tick.next() != nil)
            let _: Int = try await signals.action("emit", "move", 2)
            var move = moves.makeAsyncIterator()
            let pair = await move.next()
            #expect(pair?.0 == 1.5 && pair?.1 == 2.5)
            let _: Int = try await signals.action("triple")
            var triple = triples.makeAsyncIterator()
            let values = await triple.next()
            #expect(values?.0 == "a" && values?.1 == 2 && values?.2 == true)
            await actor.close()
            await signals.close()
            await client.close()
        }
    }

    @Test("The enabled lifecycle: enabled false disposes the connection and resets to idle, true reconnects")
    func enabled() async throws {
        try await InProcessServer.with(registry: Self.registry) { server in
            let client = server.client()
            var isEnabled = true
            let chat = ActorObservable(client: client, options: ActorOptions(name: "chat", key: "room-1", enabled: isEnabled))
            try await waitUntil("the chat to connect") { chat.isConnected }
            isEnabled = false
            chat.update(ActorOptions(name: "chat", key: "room-1", enabled: isEnabled))
            #expect(chat.connStatus == .idle)
            #expect(chat.connection == nil)
            try await waitUntil("the socket to close") { server.openCount == 0 }
            isEnabled = true
            chat.update(ActorOptions(name: "chat", key: "room-1", enabled: isEnabled))
            try await waitUntil("the chat to reconnect") { chat.isConnected }
            await chat.close()
            await client.close()
        }
    }
}
