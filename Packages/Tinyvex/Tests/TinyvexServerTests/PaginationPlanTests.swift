import Foundation
import GRDB
import Testing
@testable import TinyvexServer

/// How SQLite reads a page: through the declared index, from the cursor's position.
@Suite("Tinyvex pagination plans: a page seeks the index from its cursor", .timeLimit(.minutes(1)))
struct PaginationPlanTests {
    private func plan(
        _ store: DocumentStore, table: String, index: TinyvexIndex?, range: TinyvexIndexRange, descending: Bool,
        after start: PagePosition?, upTo end: PagePosition?
    ) throws -> [String] {
        let interval = try index.map { try IndexInterval(table: table, index: $0, range: range) }
        // Descending from a value, the values up to it are read first (the NULLs after them).
        let segment: DocumentStore.PageSegment = descending ? .upToCursorValue : .all
        let (sql, arguments) = try DocumentStore.pageSelect(
            table, index: index, in: interval, descending: descending, after: start, upTo: end, limit: 11, segment: segment)
        return try store.writer.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(arguments)).map { row in
                let detail: String = row["detail"]
                return detail
            }
        }
    }

    @Test("EXPLAIN QUERY PLAN: a page after a cursor, pinned or not, in either order, searches the declared index from the cursor's value with no sort")
    func seekPlans() throws {
        let byChannelAt = TinyvexIndex("by_channel_at", on: ["channel", "at"])
        let store = try DocumentStore(.inMemory, indexes: ["events": ["by_channel_at": byChannelAt]])
        let name = IndexScan(index: byChannelAt, table: "events").sqlName
        let cursor = PagePosition(keys: [.integer(5)], id: 3)
        let end = PagePosition(keys: [.integer(50)], id: 30)
        for descending in [false, true] {
            for pinned in [nil, end] {
                let details = try plan(
                    store, table: "events", index: byChannelAt, range: TinyvexIndexRange().eq("channel", "c"), descending: descending,
                    after: cursor, upTo: pinned)
                #expect(details.contains { $0.contains("SEARCH") && $0.contains("USING INDEX \(name) (") }, "\(details)")
                #expect(!details.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") }, "\(details)")
                // The cursor's value bounds the search itself.
                #expect(details.contains { $0.contains(descending ? "<" : ">") }, "\(details)")
            }
        }
        // In creation order, a page is a search of the table's own index from the cursor's id.
        let byID = try plan(store, table: "events", index: nil, range: TinyvexIndexRange(), descending: false, after: PagePosition(keys: [], id: 3), upTo: nil)
        #expect(byID.contains { $0.contains("SEARCH") && $0.contains("id>?") }, "\(byID)")
        #expect(!byID.contains { $0.contains("TEMP B-TREE") }, "\(byID)")
    }
}
