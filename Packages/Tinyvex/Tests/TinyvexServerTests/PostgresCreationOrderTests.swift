import RpcWire
import Synchronization
import Testing
import TinyvexPostgres
@testable import TinyvexServer

@Suite("PostgreSQL reads in creation order take only their rows from the database")
struct PostgresCreationOrderTests {
    /// A session that counts the rows its statements returned.
    final class CountingSession: PostgresSession {
        let base: any PostgresSession
        private let rows = Mutex(0)

        init(_ base: any PostgresSession) {
            self.base = base
        }

        /// The rows returned since the last call.
        func takeCount() -> Int {
            rows.withLock { count in
                defer { count = 0 }
                return count
            }
        }

        func run(_ sql: String, _ binds: [PostgresValue]) throws -> [[PostgresValue]] {
            let returned = try base.run(sql, binds)
            rows.withLock { $0 += returned.count }
            return returned
        }
    }

    static let byChannel = TinyvexIndex("by_channel", on: ["channel"])
    static let indexes = ["messages": ["by_channel": byChannel]]

    /// Runs `body` with a transaction of a fresh PostgreSQL store on a counting session.
    static func withTransaction(_ body: (PostgresStoreTransaction, CountingSession) throws -> Void) async throws {
        try await PostgresTestDatabase.with { url in
            try await TinyvexPostgres.withDatabase(url: url) { database in
                guard case .postgres(let postgres) = database else {
                    Issue.record("a PostgreSQL URL opens a PostgreSQL database")
                    return
                }
                // Makes the tables and the declared index.
                _ = try PostgresDocumentStore(postgres, indexes: indexes)
                let session = CountingSession(postgres.writer)
                try body(PostgresStoreTransaction(session: session, indexes: indexes), session)
            }
        }
    }

    static func position(_ id: Int64) -> PagePosition {
        PagePosition(keys: [], id: id)
    }

    @Test(
        "A page after a cursor, either way and up to an end, reads its rows only, of a table or of an index whose every field is fixed",
        .enabled(if: PostgresTestDatabase.isAvailable))
    func pagesReadTheirRowsOnly() async throws {
        try await Self.withTransaction { transaction, session in
            var ids: [Int64] = []
            for n in 0 ..< 300 {
                ids.append(try transaction.insert("messages", ["channel": n % 3 == 0 ? "a" : "b", "n": .integer(Int64(n))]))
            }
            _ = session.takeCount()

            let ascending = try transaction.pageRows(
                "messages", index: nil, in: nil, descending: false, after: Self.position(ids[10]), upTo: nil, limit: 5, check: {})
            #expect(ascending.map(\.id) == Array(ids[11 ... 15]))
            #expect(session.takeCount() == 5)

            let descending = try transaction.pageRows(
                "messages", index: nil, in: nil, descending: true, after: Self.position(ids[10]), upTo: nil, limit: 5, check: {})
            #expect(descending.map(\.id) == Array(ids[5 ... 9].reversed()))
            #expect(session.takeCount() == 5)

            let bounded = try transaction.pageRows(
                "messages", index: nil, in: nil, descending: false, after: Self.position(ids[10]), upTo: Self.position(ids[20]),
                limit: 100, check: {})
            #expect(bounded.map(\.id) == Array(ids[11 ... 20]))
            #expect(session.takeCount() == 10)

            let interval = try IndexInterval(table: "messages", index: Self.byChannel, range: TinyvexIndexRange().eq("channel", "a"))
            let channel = try transaction.pageRows(
                "messages", index: Self.byChannel, in: interval, descending: false, after: Self.position(ids[0]), upTo: nil,
                limit: 4, check: {})
            #expect(channel.map(\.id) == [ids[3], ids[6], ids[9], ids[12]])
            #expect(session.takeCount() == 4)

            let newest = try transaction.documents("messages", index: Self.byChannel, in: interval, descending: true, limit: 2)
            #expect(newest.map(\.0) == [ids[297], ids[294]])
            #expect(session.takeCount() == 2)
        }
    }

    @Test(
        "A row the index expression matches but the exact check refuses is replaced by the next one, so the limit is filled",
        .enabled(if: PostgresTestDatabase.isAvailable))
    func droppedRowIsRefilled() async throws {
        try await Self.withTransaction { transaction, _ in
            // Written by hand with the escape `\uFFFD`: the index reads a NUL as that escape, so
            // this row matches a query for "x\u{0}y" in PostgreSQL and is dropped in Swift.
            let lookalike = try transaction.session.run(
                "INSERT INTO tinyvex_documents (tbl, body) VALUES ($1, $2) RETURNING id",
                [.bytes(Array("messages".utf8)), .text(#"{"channel":"x\uFFFDy"}"#)])
            #expect(lookalike.count == 1)
            let first = try transaction.insert("messages", ["channel": "x\u{0}y"])
            let second = try transaction.insert("messages", ["channel": "x\u{0}y"])
            let interval = try IndexInterval(
                table: "messages", index: Self.byChannel, range: TinyvexIndexRange().eq("channel", "x\u{0}y"))
            let page = try transaction.pageRows(
                "messages", index: Self.byChannel, in: interval, descending: false, after: nil, upTo: nil, limit: 1, check: {})
            #expect(page.map(\.id) == [first])
            let both = try transaction.documents("messages", index: Self.byChannel, in: interval, descending: false, limit: 2)
            #expect(both.map(\.0) == [first, second])
        }
    }
}
