import Foundation
import RpcWire
import Testing
import TinyvexProtocol
@testable import TinyvexServer

/// Events with an index on (channel, at) and one on channel alone, read with a limit through
/// `events.take`.
private func limitSchema() -> TinyvexSchema {
    var schema = TinyvexSchema()
    schema.table("events", indexes: [TinyvexIndex("by_channel_at", on: ["channel", "at"]), TinyvexIndex("by_channel", on: ["channel"])])
    schema.mutation("events.add") { (context, event: LimitEvent) -> Int64 in
        try context.insert("events", ["channel": .string(event.channel), "at": .integer(event.at)])
    }
    schema.mutation("events.remove") { (context, target: LimitTarget) -> Bool in
        try context.delete("events", id: target.id)
    }
    schema.query("events.take") { (context, params: LimitParams) -> [Int64] in
        var query = context.query("events")
        if let index = params.index {
            query = query.withIndex(index) { $0.eq("channel", params.channel) }
        }
        query = query.order(params.descending ? .desc : .asc)
        let documents = params.first ? try query.first().map { [$0] } ?? [] : try query.take(params.limit)
        return documents.compactMap { $0["id"]?.int64Value }
    }
    return schema
}

private struct LimitEvent: Codable {
    let channel: String
    let at: Int64
}

private struct LimitTarget: Codable {
    let id: Int64
}

private struct LimitParams: Codable {
    var channel = "c"
    var index: String? = "by_channel_at"
    var descending = false
    var limit = 3
    var first = false

    var json: JSONValue {
        get throws { try JSONValueEncoder().encode(self) }
    }
}

@Suite("Tinyvex read sets narrowed by a limit: take and first record their range only up to the last document returned", .timeLimit(.minutes(1)))
struct ReadSetLimitTests {
    private func withPeer(_ body: (TinyvexServer, InMemoryPeer) async throws -> Void) async throws {
        try await TinyvexServer.withEmbeddedServer(schema: limitSchema()) { server in
            let peer = InMemoryPeer(serving: server)
            do {
                try await body(server, peer)
            } catch {
                await peer.close()
                throw error
            }
            await peer.close()
        }
    }

    private func add(_ peer: InMemoryPeer, _ channel: String, _ at: Int64) async throws -> Int64 {
        let answer = try await peer.call(TinyvexMethod.mutation, [
            "requestId": .string(UUID().uuidString), "name": "events.add", "args": ["channel": .string(channel), "at": .integer(at)],
        ])
        return try #require(answer.result?["value"]?.int64Value)
    }

    private func remove(_ peer: InMemoryPeer, _ id: Int64) async throws {
        _ = try await peer.call(TinyvexMethod.mutation, ["requestId": .string(UUID().uuidString), "name": "events.remove", "args": ["id": .integer(id)]])
    }

    private func lastValue(_ peer: InMemoryPeer, _ subID: String) -> [Int64]? {
        peer.notifications(TinyvexMethod.data).last { $0["subId"] == .string(subID) }?["value"]?.arrayValue?.compactMap(\.int64Value)
    }

    @Test("ascending take(3): writes past the third document re-run nothing; one equal to it or before it re-runs the query")
    func ascendingLimit() async throws {
        try await withPeer { server, peer in
            var ids: [Int64] = []
            for at in [10, 20, 30, 40, 50] as [Int64] { ids.append(try await add(peer, "c", at)) }
            _ = try await peer.call(TinyvexMethod.subscribe, ["subId": "s", "name": "events.take", "params": try LimitParams().json])
            #expect(lastValue(peer, "s") == Array(ids.prefix(3)))
            let before = await server.evaluationCount
            _ = try await add(peer, "c", 60)
            _ = try await add(peer, "c", 35)
            try await remove(peer, ids[4])
            _ = try await add(peer, "other", 15)
            #expect(await server.evaluationCount == before, "writes past the limit's last document re-run nothing")
            // A document at the last key (after it in creation order) is inside: equal keys count.
            _ = try await add(peer, "c", 30)
            #expect(await server.evaluationCount == before + 1)
            let early = try await add(peer, "c", 5)
            #expect(await server.evaluationCount == before + 2)
            #expect(lastValue(peer, "s") == [early, ids[0], ids[1]])
            // The range now ends at 20: a write at 25 re-runs nothing.
            _ = try await add(peer, "c", 25)
            #expect(await server.evaluationCount == before + 2)
            #expect(peer.notifications(TinyvexMethod.data).count == 2)
        }
    }

    @Test("descending take(2): writes below the second document re-run nothing; one above it re-runs the query")
    func descendingLimit() async throws {
        try await withPeer { server, peer in
            var ids: [Int64] = []
            for at in [10, 20, 30, 40, 50] as [Int64] { ids.append(try await add(peer, "c", at)) }
            var params = LimitParams()
            params.descending = true
            params.limit = 2
            _ = try await peer.call(TinyvexMethod.subscribe, ["subId": "s", "name": "events.take", "params": try params.json])
            #expect(lastValue(peer, "s") == [ids[4], ids[3]])
            let before = await server.evaluationCount
            _ = try await add(peer, "c", 30)
            try await remove(peer, ids[0])
            _ = try await add(peer, "c", -1)
            #expect(await server.evaluationCount == before)
            let high = try await add(peer, "c", 45)
            #expect(await server.evaluationCount == before + 1)
            #expect(lastValue(peer, "s") == [ids[4], high])
            try await remove(peer, ids[4])
            #expect(await server.evaluationCount == before + 2)
            #expect(lastValue(peer, "s") == [high, ids[3]])
        }
    }

    @Test("first() in creation order: a newer document re-runs nothing ascending and re-runs the query descending; deleting the first re-runs it")
    func firstInCreationOrder() async throws {
        try await withPeer { server, peer in
            let oldest = try await add(peer, "c", 1)
            let second = try await add(peer, "c", 2)
            var oldestFirst = LimitParams()
            oldestFirst.index = "by_channel"
            oldestFirst.first = true
            var newestFirst = oldestFirst
            newestFirst.descending = true
            var wholeTable = LimitParams()
            wholeTable.index = nil
            wholeTable.limit = 1
            _ = try await peer.call(TinyvexMethod.subscribe, ["subId": "old", "name": "events.take", "params": try oldestFirst.json])
            _ = try await peer.call(TinyvexMethod.subscribe, ["subId": "table", "name": "events.take", "params": try wholeTable.json])
            let before = await server.evaluationCount
            _ = try await add(peer, "c", 3)
            _ = try await add(peer, "elsewhere", 3)
            #expect(await server.evaluationCount == before, "a newer document is past both first documents")
            _ = try await peer.call(TinyvexMethod.subscribe, ["subId": "new", "name": "events.take", "params": try newestFirst.json])
            let afterSubscribe = await server.evaluationCount
            let newest = try await add(peer, "c", 4)
            #expect(await server.evaluationCount == afterSubscribe + 1, "only the newest-first query re-runs")
            #expect(lastValue(peer, "new") == [newest])
            try await remove(peer, oldest)
            #expect(await server.evaluationCount == afterSubscribe + 3, "the oldest-first query and the whole table's re-run")
            #expect(lastValue(peer, "old") == [second])
            #expect(lastValue(peer, "table") == [second])
        }
    }

    @Test("a read that returned fewer documents than its limit records its whole range: any write in it re-runs the query")
    func belowLimitRecordsWholeRange() async throws {
        try await withPeer { server, peer in
            _ = try await add(peer, "c", 10)
            var params = LimitParams()
            params.limit = 5
            _ = try await peer.call(TinyvexMethod.subscribe, ["subId": "s", "name": "events.take", "params": try params.json])
            let before = await server.evaluationCount
            let late = try await add(peer, "c", 1_000)
            #expect(await server.evaluationCount == before + 1)
            #expect(lastValue(peer, "s")?.last == late)
        }
    }

    @Test("limited subscriptions in both orders stay equal to a fresh run of their query through 100 random inserts and deletes")
    func matchesFreshRuns() async throws {
        try await withPeer { _, peer in
            var generator = SystemRandomNumberGenerator()
            var shapes: [String: LimitParams] = [:]
            for (position, (descending, limit, index)) in [(false, 3, "by_channel_at"), (true, 4, "by_channel_at"), (false, 2, "by_channel"), (true, 1, "by_channel")]
                .enumerated()
            {
                var params = LimitParams()
                params.descending = descending
                params.limit = limit
                params.index = index
                shapes["s\(position)"] = params
                _ = try await peer.call(TinyvexMethod.subscribe, ["subId": .string("s\(position)"), "name": "events.take", "params": try params.json])
            }
            var live: [Int64] = []
            for step in 0..<100 {
                if step % 3 == 2, let victim = live.randomElement(using: &generator) {
                    try await remove(peer, victim)
                    live.removeAll { $0 == victim }
                } else {
                    let channel = Int.random(in: 0..<4, using: &generator) == 0 ? "other" : "c"
                    let id = try await add(peer, channel, Int64.random(in: 0..<12, using: &generator))
                    if channel == "c" { live.append(id) }
                }
                for (subID, params) in shapes {
                    let fresh = try await peer.call(TinyvexMethod.query, ["name": "events.take", "params": try params.json])
                    let expected = fresh.result?["value"]?.arrayValue?.compactMap(\.int64Value)
                    #expect(lastValue(peer, subID) == expected, "step \(step), \(subID): \(params)")
                }
            }
        }
    }
}
