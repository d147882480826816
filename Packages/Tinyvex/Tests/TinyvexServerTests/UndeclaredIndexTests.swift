import Foundation
import GRDB
import Testing
@testable import TinyvexServer

/// An index the schema stopped declaring is dropped when the store opens; other indexes of the
/// file are left alone.
@Suite("Tinyvex indexes no longer declared are dropped at open", .timeLimit(.minutes(1)))
struct UndeclaredIndexTests {
    private func indexNames(_ store: DocumentStore) throws -> Set<String> {
        try store.writer.read { db in
            Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"))
        }
    }

    @Test("reopened with one of its two indexes declared, the store drops the other, keeps its own and the file's other indexes, and the dropped one's query plan scans")
    func dropsUndeclared() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tinyvex-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let byChannel = TinyvexIndex("by_channel", on: ["channel"])
        let byAuthor = TinyvexIndex("by_author", on: ["author"])
        let channelName = IndexScan(index: byChannel, table: "messages").sqlName
        let authorName = IndexScan(index: byAuthor, table: "messages").sqlName
        do {
            let store = try DocumentStore(.file(path), indexes: ["messages": ["by_channel": byChannel, "by_author": byAuthor]])
            try store.writer.write { db in try db.execute(sql: "CREATE INDEX someone_elses ON tinyvex_documents(body)") }
            #expect(try indexNames(store).isSuperset(of: [channelName, authorName, "someone_elses"]))
        }
        let store = try DocumentStore(.file(path), indexes: ["messages": ["by_channel": byChannel]])
        let names = try indexNames(store)
        #expect(names.contains(channelName))
        #expect(names.contains("someone_elses"))
        #expect(!names.contains(authorName))
        // Without its index, a read by author can only scan.
        let interval = try IndexInterval(table: "messages", index: byAuthor, range: TinyvexIndexRange().eq("author", "ann"))
        let (sql, arguments) = try IndexScan(index: byAuthor, table: "messages").select(interval, descending: false, limit: 5, offset: 0)
        let plan = try store.writer.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments([Data("messages".utf8)] + arguments)).map { row in
                let detail: String = row["detail"]
                return detail
            }
        }
        #expect(!plan.contains { $0.contains(authorName) }, "\(plan)")
    }
}
