import Foundation
import GRDB
import RpcWire
import Testing
import TinyvexProtocol
@testable import TinyvexServer

/// A schema of timed events with an index on (channel, at), queried with any range through
/// `events.range`.
private func eventSchema() -> TinyvexSchema {
    var schema = TinyvexSchema()
    schema.table("events", indexes: [TinyvexIndex("by_channel_at", on: ["channel", "at"])])
    schema.mutation("events.add") { (context, event: Event) -> Int64 in
        try context.insert("events", ["channel": .string(event.channel), "at": .integer(event.at)])
    }
    schema.mutation("events.remove") { (context, target: Target) -> Bool in
        try context.delete("events", id: target.id)
    }
    schema.query("events.range") { (context, range: RangeParams) -> JSONValue in
        let query = context.query("events").withIndex(range.index ?? "by_channel_at") { bounds in
            var bounds = bounds.eq(range.field ?? "channel", range.channel)
            if let low = range.low { bounds = range.lowInclusive ? bounds.gte("at", low) : bounds.gt("at", low) }
            if let high = range.high { bounds = range.highInclusive ? bounds.lte("at", high) : bounds.lt("at", high) }
            return bounds
        }.order(range.descending ? .desc : .asc)
        return .array(try (range.limit.map { try query.take($0) } ?? query.collect()).map(JSONValue.object))
    }
    return schema
}

private struct Event: Codable {
    let channel: String
    let at: Int64
}

private struct NameParams: Codable {
    let name: String
}

private struct Target: Codable {
    let id: Int64
}

private struct RangeParams: Codable {
    var channel: String
    var low: Int64?
    var lowInclusive = false
    var high: Int64?
    var highInclusive = false
    var descending = false
    var limit: Int?
    var index: String?
    var field: String?

    var json: JSONValue {
        get throws { try JSONValueEncoder().encode(self) }
    }
}

@Suite("Tinyvex declared indexes: seeks, ranges, order, limits and read-set precision", .timeLimit(.minutes(1)))
struct IndexTests {
    private func withPeer(_ schema: TinyvexSchema, _ body: (TinyvexServer, InMemoryPeer) async throws -> Void) async throws {
        try await TinyvexServer.withEmbeddedServer(schema: schema) { server in
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

    private func plan(_ store: DocumentStore, table: String, index: TinyvexIndex, range: TinyvexIndexRange, descending: Bool, limit: Int?) throws -> [String] {
        let interval = try IndexInterval(table: table, index: index, range: range)
        let (sql, arguments) = try IndexScan(index: index, table: table).select(interval, descending: descending, limit: limit, offset: 0)
        return try store.writer.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments([Data(table.utf8)] + arguments)).map { row in
                let detail: String = row["detail"]
                return detail
            }
        }
    }

    @Test("EXPLAIN QUERY PLAN: an equality, and an equality with a range in descending order with a limit, seek the declared index with no sort")
    func seekPlans() throws {
        let byChannel = TinyvexIndex("by_channel", on: ["channel"])
        let byChannelAt = TinyvexIndex("by_channel_at", on: ["channel", "at"])
        let store = try DocumentStore(.inMemory, indexes: ["messages": ["by_channel": byChannel], "events": ["by_channel_at": byChannelAt]])
        let equality = try plan(store, table: "messages", index: byChannel, range: TinyvexIndexRange().eq("channel", "general"), descending: true, limit: 50)
        let name = IndexScan(index: byChannel, table: "messages").sqlName
        #expect(equality.contains { $0.contains("SEARCH") && $0.contains("USING INDEX \(name) (") }, "\(equality)")
        #expect(!equality.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") }, "\(equality)")
        let range = try plan(
            store, table: "events", index: byChannelAt, range: TinyvexIndexRange().eq("channel", "c").gte("at", 10).lt("at", 20), descending: true,
            limit: 5)
        let rangeName = IndexScan(index: byChannelAt, table: "events").sqlName
        #expect(range.contains { $0.contains("USING INDEX \(rangeName) (") && $0.contains(">") && $0.contains("<") })
        #expect(!range.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") }, "\(range)")
    }

    @Test("ranges on the field after the equalities, in either order and with a limit, answer what a model of the documents answers")
    func rangesMatchModel() async throws {
        try await withPeer(eventSchema()) { _, peer in
            var generator = SystemRandomNumberGenerator()
            var model: [(id: Int64, channel: String, at: Int64)] = []
            for step in 0..<150 {
                if step % 7 == 6, let victim = model.randomElement(using: &generator) {
                    _ = try await peer.call(TinyvexMethod.mutation, ["requestId": .string("d\(step)"), "name": "events.remove", "args": ["id": .integer(victim.id)]])
                    model.removeAll { $0.id == victim.id }
                    continue
                }
                let channel = ["a", "b", "c"].randomElement(using: &generator) ?? "a"
                let at = Int64.random(in: 0..<40, using: &generator)
                let answer = try await peer.call(TinyvexMethod.mutation, [
                    "requestId": .string("r\(step)"), "name": "events.add", "args": ["channel": .string(channel), "at": .integer(at)],
                ])
                model.append((try #require(answer.result?["value"]?.int64Value), channel, at))
            }
            for round in 0..<60 {
                var range = RangeParams(channel: ["a", "b", "c"].randomElement(using: &generator) ?? "a")
                if Bool.random(using: &generator) { range.low = Int64.random(in: -5..<45, using: &generator) }
                if Bool.random(using: &generator) { range.high = Int64.random(in: -5..<45, using: &generator) }
                range.lowInclusive = Bool.random(using: &generator)
                range.highInclusive = Bool.random(using: &generator)
                range.descending = Bool.random(using: &generator)
                if Bool.random(using: &generator) { range.limit = Int.random(in: 0..<12, using: &generator) }
                var expected = model.filter { event in
                    guard event.channel == range.channel else { return false }
                    if let low = range.low, range.lowInclusive ? event.at < low : event.at <= low { return false }
                    if let high = range.high, range.highInclusive ? event.at > high : event.at >= high { return false }
                    return true
                }
                expected.sort { ($0.at, $0.id) < ($1.at, $1.id) }
                if range.descending { expected.reverse() }
                if let limit = range.limit { expected = Array(expected.prefix(limit)) }
                let answer = try await peer.call(TinyvexMethod.query, ["name": "events.range", "params": try range.json])
                let ids = answer.result?["value"]?.arrayValue?.compactMap { $0["id"]?.int64Value }
                #expect(ids == expected.map(\.id), "round \(round): \(range)")
            }
        }
    }

    @Test("a write to another channel re-runs nothing; a write inside the range re-runs the query, one outside its bounds does not")
    func readSetPrecision() async throws {
        try await withPeer(eventSchema()) { server, peer in
            let range = RangeParams(channel: "c", low: 10, lowInclusive: true, high: 20)
            _ = try await peer.call(TinyvexMethod.subscribe, ["subId": "s", "name": "events.range", "params": try range.json])
            let before = await server.evaluationCount
            func add(_ id: String, _ channel: String, _ at: Int64) async throws {
                _ = try await peer.call(TinyvexMethod.mutation, ["requestId": .string(id), "name": "events.add", "args": ["channel": .string(channel), "at": .integer(at)]])
            }
            try await add("r1", "other", 15)
            try await add("r2", "c", 20)
            try await add("r3", "c", 9)
            #expect(await server.evaluationCount == before)
            #expect(peer.notifications(TinyvexMethod.data).count == 1)
            try await add("r4", "c", 10)
            #expect(await server.evaluationCount == before + 1)
            #expect(peer.notifications(TinyvexMethod.data).last?["value"]?.arrayValue?.count == 1)
        }
    }

    @Test("the demo's messages.list reads through by_channel: a message to another channel re-runs nothing")
    func demoReadsThroughIndex() async throws {
        try await withPeer(TinyvexDemoSchema.schema()) { server, peer in
            _ = try await peer.call(TinyvexMethod.subscribe, ["subId": "g", "name": "messages.list", "params": ["channel": "general"]])
            let before = await server.evaluationCount
            _ = try await peer.call(TinyvexMethod.mutation, [
                "requestId": "r1", "name": "messages.send", "args": ["channel": "random", "author": "ann", "text": "elsewhere"],
            ])
            #expect(await server.evaluationCount == before)
            _ = try await peer.call(TinyvexMethod.mutation, [
                "requestId": "r2", "name": "messages.send", "args": ["channel": "general", "author": "ann", "text": "here"],
            ])
            #expect(await server.evaluationCount == before + 1)
            #expect(peer.notifications(TinyvexMethod.data).last?["value"]?.arrayValue?.first?["text"] == "here")
        }
    }

    @Test("an undeclared index, an equality out of the index's order and a bound on another field fail the query with TVX002")
    func misuse() async throws {
        try await withPeer(eventSchema()) { _, peer in
            var unknown = RangeParams(channel: "c")
            unknown.index = "by_nothing"
            var wrongField = RangeParams(channel: "c")
            wrongField.field = "at"
            for params in [unknown, wrongField] {
                let answer = try await peer.call(TinyvexMethod.query, ["name": "events.range", "params": try params.json])
                #expect(answer["error"]?["data"]?["code"] == "TVX002")
            }
        }
    }

    @Test("strings that differ only after a NUL are told apart by equalities and bounds, whatever SQLite's JSON functions make of them")
    func nulInStrings() async throws {
        var schema = TinyvexSchema()
        schema.table("names", indexes: [TinyvexIndex("by_name", on: ["name"])])
        schema.mutation("names.add") { (context, args: NameParams) -> Int64 in try context.insert("names", ["name": .string(args.name)]) }
        schema.query("names.after") { (context, args: NameParams) -> [String] in
            try context.query("names").withIndex("by_name") { $0.gt("name", args.name) }.collect().compactMap { $0["name"]?.stringValue }
        }
        schema.query("names.equal") { (context, args: NameParams) -> [String] in
            try context.query("names").withIndex("by_name") { $0.eq("name", args.name) }.collect().compactMap { $0["name"]?.stringValue }
        }
        try await withPeer(schema) { _, peer in
            for (position, name) in ["k\u{0}a", "k\u{0}b", "k", "kz"].enumerated() {
                _ = try await peer.call(TinyvexMethod.mutation, ["requestId": .string("r\(position)"), "name": "names.add", "args": ["name": .string(name)]])
            }
            let after = try await peer.call(TinyvexMethod.query, ["name": "names.after", "params": ["name": "k\u{0}a"]])
            #expect(after.result?["value"] == ["k\u{0}b", "kz"])
            let equal = try await peer.call(TinyvexMethod.query, ["name": "names.equal", "params": ["name": "k\u{0}b"]])
            #expect(equal.result?["value"] == ["k\u{0}b"])
        }
    }

    @Test("a declared name that is not letters, digits and _ stops the store from opening")
    func badNames() {
        #expect(throws: TinyvexServerError.self) {
            try DocumentStore(.inMemory, indexes: ["messages": ["x": TinyvexIndex("by'channel", on: ["channel"])]])
        }
        #expect(throws: TinyvexServerError.self) {
            try DocumentStore(.inMemory, indexes: ["messages": ["x": TinyvexIndex("x", on: [])]])
        }
    }
}
