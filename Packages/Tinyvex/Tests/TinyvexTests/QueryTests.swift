import Foundation
import Testing
import Tinyvex
import TinyvexServer

@Suite("Tinyvex client one-shot queries, over in-memory links", .timeLimit(.minutes(1)))
struct QueryTests {
    @Test("query decodes the current value, sees the client's own mutation once it returned, and subscribes nothing")
    func readsOnce() async throws {
        try await withInMemoryServer { server in
            let client = try makeClient(server)
            #expect(try await client.query("messages.list", params: Channel(channel: "general"), as: [Message].self) == [])
            let id = try await client.mutation("messages.send", args: Send(channel: "general", author: "ann", text: "hi"), as: Int64.self)
            let messages = try await client.query("messages.list", params: Channel(channel: "general"), as: [Message].self)
            #expect(messages == [Message(id: id, channel: "general", author: "ann", text: "hi")])
            #expect(try await client.query("channels.list", params: [String: String](), as: [String].self) == ["general"])
            #expect(client.subscribeRequestCount == 0)
            #expect(client.upstreamSubscriptionCount == 0)
            #expect(await server.liveQueryCount == 0)
            await client.close()
        }
    }

    @Test("query fails like a mutation: .server with TVX002 for an unknown query, .decoding for a value of another type, and a closed client's with .transport")
    func errors() async throws {
        try await withInMemoryServer { server in
            let client = try makeClient(server)
            do {
                _ = try await client.query("nothing", params: Channel(channel: "x"), as: Int.self)
                Issue.record("the query should have failed")
            } catch let error as TinyvexError {
                guard case .server(let code, _, _) = error else { Issue.record("got \(error)"); return }
                #expect(code == "TVX002")
            }
            do {
                _ = try await client.query("messages.list", params: Channel(channel: "general"), as: Int.self)
                Issue.record("the value should not have decoded")
            } catch let error as TinyvexError {
                guard case .decoding = error else { Issue.record("got \(error)"); return }
            }
            await client.close()
            do {
                _ = try await client.query("messages.list", params: Channel(channel: "general"), as: [Message].self)
                Issue.record("a closed client should refuse the query")
            } catch let error as TinyvexError {
                guard case .transport = error else { Issue.record("got \(error)"); return }
            }
        }
    }
}
