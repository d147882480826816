import Foundation
import RpcDoTesting
import RpcWire
import Testing
@testable import Tinyvex
import TinyvexProtocol
import TinyvexServer

/// Items ranked within groups, paged in rank order: an insert can land inside any page.
private func rankedSchema() -> TinyvexSchema {
    var schema = TinyvexSchema()
    schema.table("items", indexes: [TinyvexIndex("by_group_rank", on: ["group", "rank"])])
    schema.query("items.page") { (context, params: RankedPage) -> TinyvexPaginationResult<RankedItem> in
        try context.query("items").withIndex("by_group_rank") { $0.eq("group", params.group) }
            .order(params.descending == true ? .desc : .asc).paginate(params.paginationOpts)
            .map { RankedItem(id: $0["id"]?.int64Value ?? 0, rank: $0["rank"]?.int64Value) }
    }
    schema.mutation("items.add") { (context, item: NewItem) -> Int64 in
        var fields: JSONObject = ["group": .string(item.group)]
        // Without a rank the index holds NULL, which orders first.
        if let rank = item.rank { fields["rank"] = .integer(rank) }
        return try context.insert("items", fields)
    }
    schema.mutation("items.remove") { (context, target: ItemID) -> Bool in
        try context.delete("items", id: target.id)
    }
    return schema
}

private struct RankedPage: Codable {
    let group: String
    var descending: Bool?
    let paginationOpts: TinyvexPaginationOptions
}

private struct RankedItem: Codable, Sendable, Hashable {
    let id: Int64
    let rank: Int64?
}

private struct NewItem: Codable {
    let group: String
    let rank: Int64?
}

private struct ItemID: Codable {
    let id: Int64
}

private struct GroupParams: Codable {
    let group: String
    var descending: Bool?
}

/// Whether `a` comes before `b` in the index's order (a missing rank first), or in the
/// reverse order when `descending`.
private func isOrdered(_ a: RankedItem, _ b: RankedItem, descending: Bool = false) -> Bool {
    let (first, second) = descending ? (b, a) : (a, b)
    return (first.rank ?? .min, first.id) < (second.rank ?? .min, second.id)
}

/// What is wrong with `shown` as a view of the live items `live` in the query's order: `nil`
/// when it shows them in order, none twice, none deleted, none missing up to the last one
/// shown, and (once exhausted) all of them.
private func inconsistency(_ shown: TinyvexPaginatedResults<RankedItem>, live: [Int64: RankedItem], descending: Bool) -> String? {
    let ordered = { (a: RankedItem, b: RankedItem) in isOrdered(a, b, descending: descending) }
    let results = shown.results
    if !zip(results, results.dropFirst()).allSatisfy({ ordered($0, $1) }) { return "out of order or repeated" }
    if !results.allSatisfy({ live[$0.id] == $0 }) { return "shows an item that is gone" }
    let expected = live.values.sorted(by: ordered)
    if shown.status == .exhausted {
        if results != expected { return "an exhausted list is not every live item" }
    } else if let last = results.last, results != expected.filter({ !ordered(last, $0) }) {
        return "an item before the last one shown is missing"
    }
    return nil
}

@Suite("Tinyvex pagination: pages that keep their boundaries, cursors that are checked", .timeLimit(.minutes(2)))
struct PaginationTests {
    @Test(
        "a paginated live query under 1,000 random inserts and deletes between loadMores shows every live item once, in order, and nothing else",
        arguments: [false, true])
    func randomModel(descending: Bool) async throws {
        try await withInMemoryServer(schema: rankedSchema()) { server in
            let client = try makeClient(server)
            var generator = SplitMix64(state: descending ? 72 : 27)
            // The model: the live items of group "a" (group "b" is noise around them).
            var live: [Int64: RankedItem] = [:]
            func add(_ group: String) async throws {
                // Some without a rank: the index holds NULL for them.
                let rank = Int.random(in: 0 ..< 10, using: &generator) == 0 ? nil : Int64.random(in: 0 ..< 200, using: &generator)
                let id = try await client.mutation("items.add", args: NewItem(group: group, rank: rank), as: Int64.self)
                if group == "a" { live[id] = RankedItem(id: id, rank: rank) }
            }
            for _ in 0 ..< 40 { try await add("a") }
            for _ in 0 ..< 10 { try await add("b") }
            let query = client.subscribePaginated(
                "items.page", params: GroupParams(group: "a", descending: descending), initialNumItems: 6, as: RankedItem.self)
            try await waitUntil("the first page, pinned") { query.isSettled }
            #expect(query.current.status == .canLoadMore)
            #expect(query.current.results.count == 6)

            func check(_ when: String) {
                let problem = inconsistency(query.current, live: live, descending: descending)
                #expect(problem == nil, "\(when): \(problem ?? "")")
            }

            var loads = 0
            for step in 1 ... 1_000 {
                if step % 40 == 0, query.current.status == .canLoadMore {
                    #expect(query.loadMore(5))
                    loads += 1
                    try await waitUntil("page \(loads + 1), pinned") { query.isSettled }
                    check("after loadMore \(loads)")
                }
                switch Int.random(in: 0 ..< 10, using: &generator) {
                case 0 ..< 4:
                    try await add("a")
                case 4:
                    try await add("b")
                default:
                    guard let victim = live.keys.randomElement(using: &generator) else {
                        try await add("a")
                        continue
                    }
                    _ = try await client.mutation("items.remove", args: ItemID(id: victim), as: Bool.self)
                    live[victim] = nil
                }
                check("after step \(step)")
            }
            #expect(loads > 3)
            while query.current.status == .canLoadMore {
                #expect(query.loadMore(50))
                try await waitUntil("the last pages") { query.isSettled }
            }
            #expect(query.current.status == .exhausted)
            check("at the end")
            query.cancel()
            await client.close()
        }
    }

    @Test("the publisher and the async sequence show the pages, loadMore adds one, and cancel finishes both")
    func publisherAndSequence() async throws {
        try await withInMemoryServer(schema: rankedSchema()) { server in
            let client = try makeClient(server, configuration: immediateConfiguration)
            for rank in 0 ..< 5 {
                _ = try await client.mutation("items.add", args: NewItem(group: "a", rank: Int64(rank)), as: Int64.self)
            }
            let query = client.subscribePaginated("items.page", params: GroupParams(group: "a"), initialNumItems: 3, as: RankedItem.self)
            let recorder = ValueRecorder<TinyvexPaginatedResults<RankedItem>>()
            let cancellable = query.publisher.sink(receiveCompletion: { completion in
                if case .failure(let error) = completion { recorder.finish(error) } else { recorder.finish(nil) }
            }, receiveValue: { recorder.record($0) })
            var iterator = query.makeAsyncIterator()
            try await waitUntil("the first page") { query.isSettled }
            #expect(recorder.values.last?.results.map(\.rank) == [0, 1, 2])
            #expect(recorder.values.last?.status == .canLoadMore)
            #expect(query.loadMore(3))
            #expect(!query.loadMore(3), "a second loadMore while one loads asks for nothing")
            try await waitUntil("the second page") { query.isSettled }
            #expect(recorder.values.last?.results.map(\.rank) == [0, 1, 2, 3, 4])
            #expect(recorder.values.last?.status == .exhausted)
            #expect(recorder.values.contains { $0.status == .loadingMore })
            // The last page grows with what comes after it.
            _ = try await client.mutation("items.add", args: NewItem(group: "a", rank: 9), as: Int64.self)
            #expect(query.current.results.map(\.rank) == [0, 1, 2, 3, 4, 9])
            var seen: [Int64?] = []
            while let next = try await iterator.next() {
                seen = next.results.map(\.rank)
                if seen == [0, 1, 2, 3, 4, 9] { break }
            }
            query.cancel()
            #expect(try await iterator.next() == nil)
            try await waitUntil("the publisher to finish") { recorder.finished }
            #expect(recorder.failure == nil)
            cancellable.cancel()
            try await waitUntil("the pages to be unsubscribed") { client.upstreamSubscriptionCount == 0 }
            await client.close()
        }
    }

    @Test("pages of one client converge on a model while another client inserts and deletes (the server's background pass re-runs them)")
    func otherWriter() async throws {
        try await withInMemoryServer(schema: rankedSchema()) { server in
            let reader = try makeClient(server)
            let writer = try makeClient(server)
            var generator = SplitMix64(state: 2_727)
            var live: [Int64: RankedItem] = [:]
            func add() async throws {
                let rank = Int64.random(in: 0 ..< 100, using: &generator)
                let id = try await writer.mutation("items.add", args: NewItem(group: "a", rank: rank), as: Int64.self)
                live[id] = RankedItem(id: id, rank: rank)
            }
            for _ in 0 ..< 30 { try await add() }
            let query = reader.subscribePaginated("items.page", params: GroupParams(group: "a"), initialNumItems: 5, as: RankedItem.self)
            try await waitUntil("the first page, pinned") { query.isSettled }
            for step in 1 ... 300 {
                if Int.random(in: 0 ..< 2, using: &generator) == 0, let victim = live.keys.randomElement(using: &generator) {
                    _ = try await writer.mutation("items.remove", args: ItemID(id: victim), as: Bool.self)
                    live[victim] = nil
                } else {
                    try await add()
                }
                if step % 20 == 0 {
                    let model = live
                    try await waitUntil("the pages to converge after step \(step)") { inconsistency(query.current, live: model, descending: false) == nil }
                    if query.current.status == .canLoadMore {
                        #expect(query.loadMore(4))
                        try await waitUntil("the next page, pinned") { query.isSettled }
                    }
                }
            }
            while query.current.status == .canLoadMore {
                #expect(query.loadMore(50))
                try await waitUntil("the last pages") { query.isSettled }
            }
            let model = live
            try await waitUntil("every live item") { inconsistency(query.current, live: model, descending: false) == nil }
            #expect(query.current.results.count == live.count)
            query.cancel()
            await reader.close()
            await writer.close()
        }
    }

    @Test("a pinned page re-runs for a write inside its part of the order, not for one after its end or in another group")
    func readSetPrecision() async throws {
        try await withInMemoryServer(schema: rankedSchema()) { server in
            let client = try makeClient(server)
            for rank in stride(from: 0, to: 20, by: 2) {
                _ = try await client.mutation("items.add", args: NewItem(group: "a", rank: Int64(rank)), as: Int64.self)
            }
            let query = client.subscribePaginated("items.page", params: GroupParams(group: "a"), initialNumItems: 3, as: RankedItem.self)
            try await waitUntil("the first page, pinned") { query.isSettled }
            #expect(query.current.results.map(\.rank) == [0, 2, 4])
            let evaluations = try #require(await server.server?.evaluationCount)
            _ = try await client.mutation("items.add", args: NewItem(group: "a", rank: 15), as: Int64.self)
            _ = try await client.mutation("items.add", args: NewItem(group: "b", rank: 1), as: Int64.self)
            #expect(await server.server?.evaluationCount == evaluations)
            _ = try await client.mutation("items.add", args: NewItem(group: "a", rank: 3), as: Int64.self)
            #expect(await server.server?.evaluationCount == evaluations + 1)
            #expect(query.current.results.map(\.rank) == [0, 2, 3, 4])
            query.cancel()
            await client.close()
        }
    }

    @Test("a paginated query over a database file goes on after the server restarts: its pages resume with their cursors, and loadMore reaches the end")
    func survivesRestart() async throws {
        let (database, cleanup) = temporaryDatabase()
        defer { cleanup() }
        let server = InMemoryServer(schema: rankedSchema())
        try await server.start(database: database)
        let client = try makeClient(server)
        for rank in 0 ..< 10 {
            _ = try await client.mutation("items.add", args: NewItem(group: "a", rank: Int64(rank)), as: Int64.self)
        }
        let query = client.subscribePaginated("items.page", params: GroupParams(group: "a"), initialNumItems: 4, as: RankedItem.self)
        try await waitUntil("the first page, pinned") { query.isSettled }
        #expect(query.loadMore(4))
        try await waitUntil("the second page, pinned") { query.isSettled }
        #expect(query.current.results.map(\.rank) == [0, 1, 2, 3, 4, 5, 6, 7])
        try await server.stop()
        try await server.start(database: database)
        // Written after the restart, inside the second page and after the loaded pages.
        _ = try await client.mutation("items.add", args: NewItem(group: "a", rank: 5), as: Int64.self)
        _ = try await client.mutation("items.add", args: NewItem(group: "a", rank: 20), as: Int64.self)
        try await waitUntil("the resumed pages to show the insert") { query.current.results.map(\.rank) == [0, 1, 2, 3, 4, 5, 5, 6, 7] }
        #expect(query.current.status == .canLoadMore)
        #expect(query.loadMore(10))
        try await waitUntil("the last page") { query.current.status == .exhausted && query.isSettled }
        #expect(query.current.results.map(\.rank) == [0, 1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 20])
        query.cancel()
        await client.close()
        try await server.stop()
    }

    @Test("the demo's messages.page pages a channel oldest first and messages.count counts it")
    func demoPage() async throws {
        try await withInMemoryServer { server in
            let client = try makeClient(server)
            for text in ["a", "b", "c"] {
                _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "ann", text: text), as: Int64.self)
            }
            _ = try await client.mutation("messages.send", args: Send(channel: "other", author: "ann", text: "x"), as: Int64.self)
            struct PageParams: Codable { let channel: String; let paginationOpts: TinyvexPaginationOptions }
            let first = try await client.query(
                "messages.page", params: PageParams(channel: "general", paginationOpts: .init(numItems: 2)), as: TinyvexPaginationResult<Message>.self)
            #expect(first.page.map(\.text) == ["a", "b"])
            #expect(!first.isDone)
            let rest = try await client.query(
                "messages.page", params: PageParams(channel: "general", paginationOpts: .init(numItems: 2, cursor: first.continueCursor)),
                as: TinyvexPaginationResult<Message>.self)
            #expect(rest.page.map(\.text) == ["c"])
            #expect(rest.isDone)
            #expect(try await client.query("messages.count", params: Channel(channel: "general"), as: Int.self) == 3)
            await client.close()
        }
    }

    @Test("a damaged cursor, one of another query, and numItems out of bounds are refused with TVX002")
    func cursorTampering() async throws {
        try await withInMemoryServer(schema: rankedSchema(), configuration: TinyvexServerConfiguration(maxPaginationItems: 50)) { server in
            let client = try makeClient(server)
            for rank in 0 ..< 4 {
                _ = try await client.mutation("items.add", args: NewItem(group: "a", rank: Int64(rank)), as: Int64.self)
            }
            func page(_ group: String, _ options: TinyvexPaginationOptions, descending: Bool? = nil) async throws -> TinyvexPaginationResult<RankedItem> {
                try await client.query("items.page", params: RankedPage(group: group, descending: descending, paginationOpts: options), as: TinyvexPaginationResult<RankedItem>.self)
            }
            let first = try await page("a", TinyvexPaginationOptions(numItems: 2))
            #expect(first.page.map(\.rank) == [0, 1])
            #expect(!first.isDone)
            let second = try await page("a", TinyvexPaginationOptions(numItems: 5, cursor: first.continueCursor))
            #expect(second.page.map(\.rank) == [2, 3])
            #expect(second.isDone)
            let cursor = first.continueCursor
            var damaged = Array(cursor)
            damaged[0] = damaged[0] == "f" ? "g" : "f"
            let refused: [(String, TinyvexPaginationOptions, Bool?)] = [
                ("a", TinyvexPaginationOptions(numItems: 2, cursor: "not a cursor"), nil),
                ("a", TinyvexPaginationOptions(numItems: 2, cursor: String(damaged)), nil),
                ("a", TinyvexPaginationOptions(numItems: 2, cursor: String(cursor.dropLast(3))), nil),
                ("a", TinyvexPaginationOptions(numItems: 2, cursor: cursor + "AAAA"), nil),
                ("a", TinyvexPaginationOptions(numItems: 2, cursor: "eyJ2IjoxfQ"), nil),
                ("b", TinyvexPaginationOptions(numItems: 2, cursor: cursor), nil),
                ("a", TinyvexPaginationOptions(numItems: 2, cursor: cursor), true),
                ("a", TinyvexPaginationOptions(numItems: 2, endCursor: String(damaged)), nil),
                ("a", TinyvexPaginationOptions(numItems: 0), nil),
                ("a", TinyvexPaginationOptions(numItems: -1), nil),
                ("a", TinyvexPaginationOptions(numItems: 51), nil),
                ("a", TinyvexPaginationOptions(numItems: .max), nil),
            ]
            for (group, options, descending) in refused {
                do {
                    _ = try await page(group, options, descending: descending)
                    Issue.record("\(options) on \(group) should have been refused")
                } catch let error as TinyvexError {
                    guard case .server(let code, _, _) = error else { Issue.record("got \(error)"); continue }
                    #expect(code == "TVX002", "\(options)")
                }
            }
            // The server goes on serving.
            #expect(try await page("a", TinyvexPaginationOptions(numItems: 50)).page.count == 4)
            await client.close()
        }
    }
}

/// Values delivered on the thread that received them, so a test needs no main queue.
private let immediateConfiguration = TinyvexClientConfiguration(
    reconnect: .init(maxAttempts: 200, backoff: .exponential(base: .milliseconds(20), max: .milliseconds(200))), delivery: .immediate)
