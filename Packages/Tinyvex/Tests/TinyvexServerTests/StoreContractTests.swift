import Foundation
import RpcTesting
import RpcWire
import Testing
import TinyvexPostgres
import TinyvexProtocol
@testable import TinyvexServer

/// A schema over one table of values of any kind, with an index on (group, at), for the tests
/// of the store contract.
private func contractSchema() -> TinyvexSchema {
    var schema = TinyvexDemoSchema.schema()
    schema.table("values", indexes: [TinyvexIndex("by_group_at", on: ["group", "at"])])
    schema.mutation("values.put") { (context, args: JSONValue) -> Int64 in
        guard case .object(let fields) = args, case .string(let table)? = fields["table"], case .object(let document)? = fields["document"] else {
            throw TinyvexServerError(.mutationFailed, "put takes a table and a document")
        }
        return try context.insert(table, document)
    }
    schema.query("values.count") { (context, args: JSONValue) -> Int in
        guard case .string(let table)? = args["table"] else { throw TinyvexServerError(.subscriptionRejected, "count takes a table") }
        return try context.all(table).count
    }
    schema.query("values.range") { (context, args: JSONValue) -> [Int64] in
        guard case .string(let group)? = args["group"] else { throw TinyvexServerError(.subscriptionRejected, "range takes a group") }
        let query = context.query("values").withIndex("by_group_at") { bounds in
            var bounds = bounds.eq("group", group)
            if let low = args["low"] { bounds = bounds.gt("at", low) }
            if let high = args["high"] { bounds = bounds.lte("at", high) }
            return bounds
        }.order(args["desc"] == .bool(true) ? .desc : .asc)
        let found = try args["limit"]?.int64Value.map { try query.take(Int($0)) } ?? query.collect()
        return found.compactMap { $0["n"]?.int64Value }
    }
    return schema
}

/// Opens an engine on `location`'s store, runs `body`, and closes it.
private func withEngine<T>(_ location: StoreLocation, _ body: (TinyvexEngine) async throws -> T) async throws -> T {
    try await location.open { database in
        let engine = try await TinyvexEngine.open(schema: contractSchema(), database: database, configuration: TinyvexServerConfiguration())
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(engine))
        } catch {
            outcome = .failure(error)
        }
        await engine.close()
        return try outcome.get()
    }
}

private func send(_ engine: TinyvexEngine, _ requestID: String?, channel: String = "general", text: String) async throws -> (value: JSONValue, seq: Int64) {
    try await engine.mutate(
        connectionID: nil, identity: nil, clientID: "client", requestID: requestID, name: "messages.send",
        args: ["channel": .string(channel), "author": "ann", "text": .string(text)])
}

private func texts(_ engine: TinyvexEngine, channel: String) async throws -> [String] {
    try await engine.query(name: "messages.list", params: ["channel": .string(channel)], identity: nil).arrayValue?.compactMap { $0["text"]?.stringValue } ?? []
}

@Suite("Tinyvex stores: SQLite and PostgreSQL keep the same contract", .timeLimit(.minutes(2)))
struct StoreContractTests {
    @Test(
        "the PostgreSQL store tests run wherever the PostgreSQL tests are required: the cluster URL is set",
        .enabled(if: ProcessInfo.processInfo.environment["RPC_REQUIRE_POSTGRES"] == "1"))
    func clusterIsGiven() {
        #expect(PostgresTestDatabase.isAvailable)
    }

    @Test("mutations take the next versions in one commit order, and the version goes on after a restart", arguments: StoreKind.available)
    func versions(kind: StoreKind) async throws {
        try await kind.withStore { location in
            let first = try await withEngine(location) { engine throws in
                var seqs: [Int64] = []
                for index in 0..<3 { seqs.append(try await send(engine, nil, text: "m\(index)").seq) }
                return seqs
            }
            #expect(first == [1, 2, 3])
            try await withEngine(location) { engine throws in
                #expect(try await send(engine, nil, text: "after").seq == 4)
                #expect(try await texts(engine, channel: "general") == ["m0", "m1", "m2", "after"])
            }
        }
    }

    @Test("a mutation resent with its requestId is answered from its stored result and applied once, after a restart too", arguments: StoreKind.available)
    func idempotentRequests(kind: StoreKind) async throws {
        try await kind.withStore { location in
            let first = try await withEngine(location) { engine throws in
                let first = try await send(engine, "r1", text: "once")
                let again = try await send(engine, "r1", text: "once")
                #expect(again.value == first.value && again.seq == first.seq)
                return first
            }
            try await withEngine(location) { engine throws in
                let resent = try await send(engine, "r1", text: "once")
                #expect(resent.value == first.value && resent.seq == first.seq)
                #expect(try await texts(engine, channel: "general") == ["once"])
            }
        }
    }

    @Test("texts that differ only after a NUL stay different: table names, indexed values and requestIds", arguments: StoreKind.available)
    func textsWithNUL(kind: StoreKind) async throws {
        try await kind.withStore { location in
            try await withEngine(location) { engine throws in
                _ = try await send(engine, "r\u{0}1", channel: "a\u{0}b", text: "first")
                _ = try await send(engine, "r\u{0}2", channel: "a\u{0}c", text: "second")
                _ = try await send(engine, nil, channel: "a", text: "plain")
                #expect(try await texts(engine, channel: "a\u{0}b") == ["first"])
                #expect(try await texts(engine, channel: "a\u{0}c") == ["second"])
                #expect(try await texts(engine, channel: "a") == ["plain"])
                #expect(try await texts(engine, channel: "a\u{0}") == [])
                for table in ["t", "t\u{0}x"] {
                    _ = try await engine.mutate(
                        connectionID: nil, identity: nil, requestID: nil, name: "values.put", args: ["table": .string(table), "document": ["x": "\u{0}"]])
                }
                for (table, count) in [("t", 1), ("t\u{0}x", 1), ("t\u{0}y", 0)] {
                    #expect(try await engine.query(name: "values.count", params: ["table": .string(table)], identity: nil) == .integer(Int64(count)))
                }
            }
        }
    }

    @Test("an index range reads its documents in index order (numbers before strings, then by id) within bounds and limit", arguments: StoreKind.available)
    func indexRanges(kind: StoreKind) async throws {
        try await kind.withStore { location in
            try await withEngine(location) { engine throws in
                let ats: [JSONValue] = [3, 1, 2.5, "b", "a\u{0}z", true, 2.5, .null, "a"]
                for (n, at) in ats.enumerated() {
                    _ = try await engine.mutate(
                        connectionID: nil, identity: nil, requestID: nil, name: "values.put",
                        args: ["table": "values", "document": ["group": "g", "at": at, "n": .integer(Int64(n))]])
                }
                _ = try await engine.mutate(
                    connectionID: nil, identity: nil, requestID: nil, name: "values.put",
                    args: ["table": "values", "document": ["group": "h", "at": 1, "n": 99]])
                func range(_ params: JSONValue) async throws -> JSONValue {
                    try await engine.query(name: "values.range", params: params, identity: nil)
                }
                // In SQLite's order: null first, then numbers (true is 1), then strings by their bytes up to
                // a NUL; ties by id.
                #expect(try await range(["group": "g"]) == [7, 1, 5, 2, 6, 0, 4, 8, 3])
                #expect(try await range(["group": "g", "low": 1]) == [2, 6, 0, 4, 8, 3])
                #expect(try await range(["group": "g", "low": 1, "high": 3, "desc": true]) == [0, 6, 2])
                #expect(try await range(["group": "g", "low": "a", "limit": 2]) == [4, 3])
                #expect(try await range(["group": "g", "desc": true, "limit": 3]) == [3, 8, 4])
            }
        }
    }

    @Test("pages through an index read every document once, in order", arguments: StoreKind.available)
    func pages(kind: StoreKind) async throws {
        try await kind.withStore { location in
            try await withEngine(location) { engine throws in
                for index in 0..<7 { _ = try await send(engine, nil, channel: index % 2 == 0 ? "c" : "d", text: "m\(index)") }
                var cursor: JSONValue = .null
                var seen: [String] = []
                for _ in 0..<10 {
                    let page = try await engine.query(
                        name: "messages.page", params: ["channel": "c", "paginationOpts": ["numItems": 2, "cursor": cursor]], identity: nil)
                    seen += page["page"]?.arrayValue?.compactMap { $0["text"]?.stringValue } ?? []
                    if page["isDone"] == .bool(true) { break }
                    cursor = page["continueCursor"] ?? .null
                }
                #expect(seen == ["m0", "m2", "m4", "m6"])
            }
        }
    }

    @Test("a scheduled mutation runs once after its delay, and one scheduled before a restart runs after it", arguments: StoreKind.available)
    func scheduled(kind: StoreKind) async throws {
        try await kind.withStore { location in
            try await withEngine(location) { engine throws in
                _ = try await engine.mutate(
                    connectionID: nil, identity: nil, requestID: nil, name: "messages.schedule",
                    args: ["channel": "later", "author": "ann", "text": "soon", "delayMs": 20])
                try await waitUntil("the scheduled mutation to run") { try await texts(engine, channel: "later") == ["soon"] }
                _ = try await engine.mutate(
                    connectionID: nil, identity: nil, requestID: nil, name: "messages.schedule",
                    args: ["channel": "restart", "author": "ann", "text": "kept", "delayMs": 60_000])
                #expect(await engine.pendingScheduledCount == 1)
            }
            try await withEngine(location) { engine throws in
                #expect(await engine.pendingScheduledCount == 1)
                #expect(try await texts(engine, channel: "later") == ["soon"])
            }
        }
    }

    @Test("on PostgreSQL each declared index is an expression index of the documents table, and one no longer declared is dropped", .enabled(if: PostgresTestDatabase.isAvailable))
    func postgresIndexes() async throws {
        try await StoreKind.postgres.withStore { location in
            guard case .postgres(let url) = location else { return }
            try await withEngine(location) { _ in }
            let definitions = try await PostgresTestDatabase.query(
                url, "SELECT indexdef FROM pg_indexes WHERE tablename = 'tinyvex_documents' AND indexname LIKE 'tinyvex_index_%' ORDER BY indexname")
            #expect(definitions.count == 2)
            #expect(definitions.allSatisfy { $0.contains("json_typeof") })
            // A schema that no longer declares `values.by_group_at` (and declares one with
            // capitals): the index is dropped, the others stay.
            var schema = TinyvexDemoSchema.schema()
            schema.table("Events", indexes: [TinyvexIndex("ByAt", on: ["at"])])
            try await location.open { database in
                let engine = try await TinyvexEngine.open(schema: schema, database: database, configuration: TinyvexServerConfiguration())
                await engine.close()
            }
            let remaining = try await PostgresTestDatabase.query(
                url, "SELECT indexname::text FROM pg_indexes WHERE tablename = 'tinyvex_documents' AND indexname LIKE 'tinyvex_index_%' ORDER BY indexname")
            #expect(remaining.count == 2)
            #expect(remaining.contains { $0.hasPrefix("tinyvex_index_events_byat_") })
            #expect(!remaining.contains { $0.hasPrefix("tinyvex_index_values_") })
        }
    }

    @Test(
        "on PostgreSQL a server whose connections are cut fails its calls with TVX003, connects again with backoff and goes on with nothing lost",
        .enabled(if: PostgresTestDatabase.isAvailable))
    func postgresReconnects() async throws {
        try await StoreKind.postgres.withStore { location in
            guard case .postgres(let url) = location, let cluster = PostgresTestDatabase.clusterURL,
                let name = URLComponents(string: url)?.path.dropFirst()
            else { return }
            try await withEngine(location) { engine throws in
                _ = try await send(engine, "r1", text: "before")
                let cut = try await PostgresTestDatabase.query(
                    cluster, "SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE datname = '\(name)'")
                #expect(cut.count >= 2)
                var reasons: Set<String> = []
                try await waitUntil("the server to write again") {
                    do {
                        _ = try await send(engine, "r2", text: "after")
                        return true
                    } catch let error as TinyvexServerError {
                        #expect(error.code == .mutationFailed)
                        reasons.insert(error.details?["reason"]?.stringValue ?? "")
                        return false
                    }
                }
                #expect(reasons.isSubset(of: ["databaseFailed", "databaseUnavailable"]))
                #expect(try await texts(engine, channel: "general") == ["before", "after"])
            }
        }
    }

    @Test("a second server on one PostgreSQL database is refused while the first runs", .enabled(if: PostgresTestDatabase.isAvailable))
    func postgresOneServer() async throws {
        try await PostgresTestDatabase.with { url in
            try await TinyvexPostgres.withDatabase(url: url) { _ in
                await #expect(throws: TinyvexPostgresError.self) {
                    try await TinyvexPostgres.withDatabase(url: url) { _ in }
                }
            }
            // Released when the first one ends.
            try await TinyvexPostgres.withDatabase(url: url) { _ in }
        }
    }
}
