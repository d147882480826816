import Foundation
import RpcDoTesting
import Testing
// The only imports: they must name the pagination types.
import Tinyvex
import TinyvexServer

/// The README's pagination and scheduler snippets, as written, over an in-memory server.
@Suite("Tinyvex README: the pagination and scheduler snippets compile and work", .timeLimit(.minutes(1)))
struct ReadmePaginationTests {
    struct Message: Codable, Sendable { var id: Int64; var channel: String; var author: String; var text: String }

    // From here on, the README's server snippet.
    struct PageParams: Codable { var channel: String; var paginationOpts: TinyvexPaginationOptions }
    struct Later: Codable { var channel: String; var author: String; var text: String; var delayMs: Int }

    static func readmeSchema() -> TinyvexSchema {
        var schema = TinyvexSchema()
        schema.table("messages", indexes: [TinyvexIndex("by_channel", on: ["channel"])])
        schema.query("messages.page") { (context, params: PageParams) in
            try context.query("messages").withIndex("by_channel") { $0.eq("channel", params.channel) }
                .order(.asc).paginate(params.paginationOpts).map(JSONValue.object)
        }
        schema.mutation("messages.schedule") { (context, args: Later) in
            try context.scheduler.runAfter(.milliseconds(args.delayMs), "messages.send",
                                           args: ["channel": args.channel, "author": args.author, "text": args.text])
        }
        // End of the snippet; a messages.send for it to schedule.
        schema.mutation("messages.send") { (context, send: SendArgs) -> Int64 in
            try context.insert("messages", ["channel": .string(send.channel), "author": .string(send.author), "text": .string(send.text)])
        }
        return schema
    }

    struct SendArgs: Codable { var channel: String; var author: String; var text: String }

    @Test("the client snippet pages a channel and schedules a message that arrives in the last page")
    func snippets() async throws {
        try await withInMemoryServer(schema: Self.readmeSchema()) { server in
            let client = try makeClient(server, configuration: TinyvexClientConfiguration(delivery: .immediate))
            for text in ["a", "b", "c"] {
                _ = try await client.mutation("messages.send", args: ["channel": "general", "author": "ann", "text": text], as: Int64.self)
            }
            let shown = ValueRecorder<TinyvexPaginatedResults<Message>>()
            // The README's client snippet (page size 2 instead of 20, a delay of 50 ms instead of 5 s).
            let pages = client.subscribePaginated("messages.page", params: ["channel": "general"], initialNumItems: 2, as: Message.self)
            let pagesSink = pages.publisher.sink(receiveCompletion: { print($0) }, receiveValue: { shown.record($0) })
            try await waitUntil("the first page") { pages.current.status == .canLoadMore }
            pages.loadMore(2)   // when the status is .canLoadMore
            let later: JSONValue = ["channel": "general", "author": "ann", "text": "later", "delayMs": 50]
            let scheduledID = try await client.mutation("messages.schedule", args: later, as: String.self)
            // End of the snippet.
            #expect(!scheduledID.isEmpty)
            try await waitUntil("the scheduled message at the end of the last page") {
                pages.current.status == .exhausted && pages.current.results.map(\.text) == ["a", "b", "c", "later"]
            }
            #expect(shown.values.last?.results.map(\.text) == ["a", "b", "c", "later"])
            pagesSink.cancel()
            pages.cancel()
            await client.close()
        }
    }
}
