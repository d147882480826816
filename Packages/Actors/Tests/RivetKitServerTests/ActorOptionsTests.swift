import RivetKit
import RivetKitServer
import RpcDoTesting
import Testing

@Suite("ActorOptions and events as seed 002 writes them: keys of one part or several, Encodable params and input, any Decodable event")
@MainActor
struct ActorOptionsTests {
    /// Connection parameters as an application declares them.
    struct Params: Encodable {
        var user: String
    }

    /// Creation input as an application declares them.
    struct Input: Encodable {
        var start: Int
        var tags: [String]
    }

    /// A value whose encoding always fails.
    struct Unencodable: Encodable {
        func encode(to encoder: any Encoder) throws {
            throw EncodingError.invalidValue(
                0, EncodingError.Context(codingPath: [], debugDescription: "this value refuses to be encoded"))
        }
    }

    /// An event payload that is not `Sendable`: a class with mutable state.
    final class Note: Decodable {
        var text: String
        var stars: Int
    }

    /// What the notes actor broadcasts: the same fields, from the server's side.
    struct NoteFrame: Codable, Sendable {
        var text: String
        var stars: Int
    }

    /// An actor that broadcasts a `note` event with an object argument.
    static var registry: ActorRegistry {
        var registry = ActorObservableTests.registry
        registry.register(
            ActorDefinition("notes", initialState: 0)
                .action("post") { (context: inout ActorContext<Int>, text: String, stars: Int) in
                    context.state += 1
                    try context.broadcast("note", NoteFrame(text: text, stars: stars))
                    return context.state
                })
        return registry
    }

    @Test("A one-part key is the key of one element; Encodable params and input are their JSON, with the same identity")
    func keysAndEncodables() {
        let single = ActorOptions(name: "chat", key: "room-1")
        #expect(single.key == ["room-1"])
        #expect(single == ActorOptions(name: "chat", key: ["room-1"]))
        #expect(single.encodingError == nil)

        let typed = ActorOptions(
            name: "chat", key: "room-1", params: Params(user: "ann"), createWithInput: Input(start: 5, tags: ["a", "b"]),
            createInRegion: "eu", enabled: false)
        #expect(typed.params == ["user": "ann"])
        #expect(typed.createWithInput == ["start": 5, "tags": ["a", "b"]])
        #expect(typed.createInRegion == "eu")
        #expect(typed.enabled == false)
        #expect(typed.encodingError == nil)
        // The same identity as the options written with JSON values.
        #expect(typed.hash == ActorOptions(name: "chat", key: ["room-1"], params: ["user": "ann"]).hash)
        #expect(typed.hash != ActorOptions(name: "chat", key: "room-1", params: Params(user: "bob")).hash)

        let parts = ActorOptions(name: "doc", key: ["org", "doc-7"], params: Params(user: "ann"))
        #expect(parts.key == ["org", "doc-7"])
        #expect(parts.params == ["user": "ann"])

        // A JSONValue given as an Encodable is kept as it is.
        let json: JSONValue = ["z": 1, "a": [true, .null]]
        let erased: (any Encodable)? = json
        #expect(ActorOptions(name: "chat", key: "r", params: erased).params == json)
    }

    @Test("Params or input that cannot be encoded are a client.config_error, which the observable reports without connecting")
    func unencodable() async throws {
        let options = ActorOptions(name: "counter", key: "bad", params: Unencodable())
        #expect(options.params == nil)
        #expect(options.encodingError?.group == "client")
        #expect(options.encodingError?.code == "config_error")
        let input = ActorOptions(name: "counter", key: ["bad"], createWithInput: Unencodable())
        #expect(input.encodingError?.code == "config_error")
        #expect(input.encodingError?.message.contains("createWithInput") == true)

        try await InProcessServer.with(registry: Self.registry) { server in
            let client = server.client()
            let counter = ActorObservable(client: client, options: options)
            #expect(counter.error == options.encodingError)
            #expect(counter.connStatus == .idle)
            let refused = await #expect(throws: ActorError.self) { let _: Int = try await counter.action("getCount") }
            #expect(refused?.code == "config_error")
            #expect(client.connectionUsers(hash: options.hash) == 0)
            #expect(server.openedCount == 0)
            // Options that encode connect as usual.
            counter.update(ActorOptions(name: "counter", key: "bad", params: Params(user: "ann")))
            try await waitUntil("the observable to connect") { counter.isConnected }
            #expect(server.openedCount == 1)
            await counter.close()
            await client.close()
        }
    }

    @Test("events(_:as:) decodes a type that is not Sendable")
    func nonSendableEvents() async throws {
        try await InProcessServer.with(registry: Self.registry) { server in
            let client = server.client()
            let notes = ActorObservable(client: client, options: ActorOptions(name: "notes", key: "board"))
            let stream = notes.events("note", as: Note.self)
            try await waitUntil("the observable to connect") { notes.isConnected }
            let posted: Int = try await notes.action("post", "hello", 3)
            #expect(posted == 1)
            var received: (text: String, stars: Int)?
            for await note in stream {
                received = (note.text, note.stars)
                break
            }
            #expect(received?.text == "hello")
            #expect(received?.stars == 3)
            #expect(notes.error == nil)
            await notes.close()
            await client.close()
        }
    }
}
