import Foundation
import RpcDo
@_spi(RpcImplementation) import RpcTransport
import RpcWire
import Testing
@testable import Tinyvex
import TinyvexServer

/// The code examples of the Tinyvex sources' doc comments, each as written, with the names they
/// take for granted declared around them: a build of the tests compiles every one, and the
/// schema's example serves what it says.
@Suite("Tinyvex doc comments: their code examples compile as written", .timeLimit(.minutes(1)))
struct DocExampleTests {
    struct Message: Codable, Sendable { var id: Int64; var channel: String; var author: String; var text: String }
    struct Todo: Codable, Sendable { var title: String }
    struct PageParams: Codable { var channel: String; var paginationOpts: TinyvexPaginationOptions }
    struct ScheduleArgs: Codable { var delayMs: Int; var message: [String: String] }
    struct Claims { var subject: String; var expiry: Date }

    /// `TinyvexSchema`'s example.
    static func todoSchema() -> TinyvexSchema {
        var schema = TinyvexSchema()
        schema.query("todos.list") { (context, _: JSONValue) in try context.all("todos").map(JSONValue.object) }
        schema.mutation("todos.add") { (context, todo: Todo) in try context.insert("todos", ["title": .string(todo.title)]) }
        return schema
    }

    @Test("the schema example of TinyvexSchema adds a todo and lists it")
    func schemaExample() async throws {
        try await withInMemoryServer(schema: Self.todoSchema()) { server in
            let client = try makeClient(server, configuration: TinyvexClientConfiguration(delivery: .immediate))
            let id = try await client.mutation("todos.add", args: Todo(title: "write docs"), as: Int64.self)
            let todos = try await client.query("todos.list", params: JSONValue.null, as: [JSONValue].self)
            #expect(todos == [["id": .integer(id), "title": "write docs"]])
            await client.close()
        }
    }

    // Compiled, not run: the client's examples.

    private func clientExamples(client: TinyvexClient, url: URL, message: Message, draft: Message) async throws {
        // TinyvexClient
        try await TinyvexClient.withClient(endpoint: url) { client in
            let cancellable = client.subscribe("messages.list", params: ["channel": "general"], as: [Message].self)
                .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
            let id = try await client.mutation("messages.send", args: message, as: Int.self)
            print(id)
            cancellable.cancel()
        }
        // withClient
        let id = try await TinyvexClient.withClient(endpoint: url) { client in
            try await client.mutation("messages.send", args: message, as: Int64.self)
        }
        // query(_:params:as:)
        let messages = try await client.query("messages.list", params: ["channel": "general"], as: [Message].self)
        // mutation(_:args:as:optimisticUpdate:)
        let sent = try await client.mutation("messages.send", args: draft, as: Int64.self) { store in
            let params = ["channel": draft.channel]
            var messages = store.getQuery("messages.list", params: params, as: [Message].self) ?? []
            messages.append(Message(id: -1, channel: draft.channel, author: draft.author, text: draft.text))
            store.setQuery("messages.list", params: params, value: messages)
        }
        print(id, messages, sent)
    }

    private func tokenProviderExample(client: TinyvexClient, session: Session) {
        client.setAuthTokenProvider { forceRefresh in
            try? await session.idToken(refreshing: forceRefresh)
        }
    }

    private func paginationExamples(client: TinyvexClient) async throws {
        do {
            // subscribePaginated(_:params:initialNumItems:as:)
            let messages = client.subscribePaginated("messages.page", params: ["channel": "general"], initialNumItems: 20, as: Message.self)
            let cancellable = messages.publisher.sink(receiveCompletion: { _ in }, receiveValue: { print($0.results.map(\.text), $0.status) })
            messages.loadMore(20)
            cancellable.cancel()
        }
        // TinyvexPaginatedQuery
        let messages = client.subscribePaginated("messages.page", params: ["channel": "general"], initialNumItems: 20, as: Message.self)
        let cancellable = messages.publisher.sink(receiveCompletion: { _ in }, receiveValue: { print($0.results.count, $0.status) })
        messages.loadMore(20)
        for try await shown in messages { print(shown.results.map(\.text)) }
        cancellable.cancel()
    }

    private func channelExample(
        configuration: ReconnectingConnectionConfiguration, settings: ManagedChannel<ManagedConnectionError>.Settings,
        open: @escaping ReconnectingConnection.TransportFactory
    ) async throws {
        let channel = JSONRPCChannel(configuration: configuration, settings: settings, factory: open,
            handshake: { channel, link in _ = try await channel.request(on: link, "hello", timeout: .seconds(5)) },
            onNotification: { method, params in print(method) })
        try await channel.connection.start()
        let sum = try await channel.request("add", params: .positional([1, 2]))
        print(sum)
    }

    // Compiled, not run: the server's examples.

    private func serverExamples(schema: TinyvexSchema, data: Data) async throws {
        var schema = schema
        // TinyvexIndex, TinyvexSchema.table(_:indexes:)
        schema.table("messages", indexes: [TinyvexIndex("by_channel", on: ["channel"])])
        // TinyvexTableQuery+Pagination
        schema.query("messages.page") { (context, params: PageParams) in
            try context.query("messages").withIndex("by_channel") { $0.eq("channel", params.channel) }
                .order(.asc).paginate(params.paginationOpts).map(JSONValue.object)
        }
        // TinyvexMutationScheduler
        schema.mutation("messages.schedule") { (context, args: ScheduleArgs) in
            try context.scheduler.runAfter(.milliseconds(args.delayMs), "messages.send", args: args.message)
        }
        // TinyvexServerError.tokenExpired()
        let configuration = TinyvexServerConfiguration(authenticate: { token in
            let claims = try verify(token)
            guard claims.expiry > .now else { throw TinyvexServerError.tokenExpired() }
            return claims.subject
        })
        // TinyvexMessageDecoder
        for outcome in TinyvexMessageDecoder.decode(Array(data)) { print(outcome) }
        // TinyvexServer
        try await TinyvexServer.withServer(schema: schema, port: 0) { server in
            print(server.url)   // ws://127.0.0.1:PORT/
        }
        print(configuration.maxMessageBytes)
    }

    private func queryExamples(context: TinyvexQueryContext, c: String, channel: String, start: Int, end: Int) throws {
        // TinyvexQueryContext.query(_:)
        let latest = try context.query("messages").withIndex("by_channel") { $0.eq("channel", c) }.order(.desc).take(50)
        // TinyvexIndexRange
        let recent = try context.query("messages").withIndex("by_channel_time") { $0.eq("channel", c).gte("at", start).lt("at", end) }.collect()
        print(latest, recent)
        do {
            // TinyvexTableQuery
            let latest = try context.query("messages")
                .withIndex("by_channel") { $0.eq("channel", channel) }
                .order(.desc)
                .take(50)
            print(latest)
        }
    }

    private func actionExample(context: TinyvexActionContext, message: Message) async throws {
        let id = try await context.scheduler.runAfter(.seconds(5), "messages.send", args: message)
        print(id)
    }

    private func verify(_ token: String) throws -> Claims { Claims(subject: token, expiry: .distantFuture) }

    /// A sign-in session, for the token provider's example.
    final class Session: Sendable {
        func idToken(refreshing: Bool) async throws -> String { refreshing ? "fresh" : "cached" }
    }
}
