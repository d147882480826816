import GRDB
import RpcWire
import TinyvexProtocol

extension DocumentStore {
    /// Which rows of the first ordered field one read of a page is limited to, so that SQLite
    /// can seek: descending from a cursor whose value is not `NULL`, the values up to it first,
    /// then (after them in that order) the `NULL`s.
    enum PageSegment {
        case all
        case upToCursorValue
        case nulls
    }

    /// One document a page read, with its position in the query's order.
    struct PageRow {
        let id: Int64
        let fields: JSONObject
        let position: PagePosition
    }

    /// The documents of `table` after `start` and up to `end` (inclusive) in the order of
    /// `index` over `interval` (creation order without an index), `descending` or not, at most
    /// `limit` (all when `nil`). SQLite seeks through the index; each row is checked again in
    /// Swift (``IndexInterval/contains(_:)``), and the next rows are read after the last one
    /// seen, so a limit is still filled. `check` runs before each read (the time limit).
    static func pageRows(
        _ table: String, index: TinyvexIndex?, in interval: IndexInterval?, descending: Bool,
        after start: PagePosition?, upTo end: PagePosition?, limit: Int?, check: () throws -> Void, _ db: Database
    ) throws -> [PageRow] {
        let orderColumns = Self.orderColumns(index: index, interval: interval)
        var found: [PageRow] = []
        var last = start
        var segment = PageSegment.all
        if descending, !orderColumns.isEmpty, let key = start?.keys.first, key != .null {
            segment = .upToCursorValue
        }
        while true {
            try check()
            let batch = limit.map { max(1, $0 - found.count) } ?? 256
            let (sql, arguments) = try pageSelect(
                table, index: index, in: interval, descending: descending, after: last, upTo: end, limit: batch, segment: segment)
            let rows = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments))
            for row in rows {
                var keys: [PagePosition.Key] = []
                for column in orderColumns.indices {
                    let value: DatabaseValue = row["k\(column)"]
                    guard let key = PagePosition.Key(database: value) else {
                        throw TinyvexServerError(.subscriptionRejected, "an indexed value of a stored document cannot be ordered")
                    }
                    keys.append(key)
                }
                let id = try decodeID(row)
                let position = PagePosition(keys: keys, id: id)
                last = position
                guard try tableMatches(row, table) else { continue }
                let fields = try decodeBody(row)
                if let interval, !interval.contains(fields) { continue }
                found.append(PageRow(id: id, fields: fields, position: position))
            }
            if let limit, found.count >= limit { break }
            if rows.count < batch {
                guard segment == .upToCursorValue else { break }
                // The values up to the cursor's are read; the NULLs come after them.
                segment = .nulls
            }
        }
        return limit.map { Array(found.prefix($0)) } ?? found
    }

    /// The expressions a page is ordered by before the id: the index fields after the
    /// interval's equalities (none without an index).
    private static func orderColumns(index: TinyvexIndex?, interval: IndexInterval?) -> [String] {
        guard let index, let interval else { return [] }
        return index.fields.dropFirst(interval.prefix.count).map(IndexScan.expression)
    }

    /// The statement reading at most `limit` rows of a page after `start` and up to `end`, in
    /// order, with their ordered values as `k0`, `k1`…, and its arguments (the table name
    /// first).
    static func pageSelect(
        _ table: String, index: TinyvexIndex?, in interval: IndexInterval?, descending: Bool,
        after start: PagePosition?, upTo end: PagePosition?, limit: Int, segment: PageSegment = .all
    ) throws -> (sql: String, arguments: [any DatabaseValueConvertible]) {
        var conditions = ["tbl = CAST(? AS TEXT)"]
        var arguments: [any DatabaseValueConvertible] = [exactText(table)]
        if let index, let interval {
            let found = try IndexScan(index: index, table: table).conditions(interval)
            conditions = found.conditions
            arguments += found.arguments
        }
        let orderColumns = Self.orderColumns(index: index, interval: interval)
        if let start {
            let (sql, afterArguments) = start.afterSQL(columns: orderColumns, descending: descending)
            conditions.append(sql)
            arguments += afterArguments as [any DatabaseValueConvertible]
            // A plain bound on the first ordered field lets SQLite seek to the position
            // instead of reading the range from its start.
            if !descending, let first = orderColumns.first, let key = start.keys.first, key != .null {
                conditions.append("\(first) >= ?")
                arguments.append(key.databaseValue)
            }
        }
        if let first = orderColumns.first {
            switch segment {
            case .all:
                break
            case .upToCursorValue:
                if let key = start?.keys.first, key != .null {
                    conditions.append("\(first) <= ?")
                    arguments.append(key.databaseValue)
                }
            case .nulls:
                conditions.append("\(first) IS NULL")
            }
        }
        if let end {
            let (sql, endArguments) = end.afterSQL(columns: orderColumns, descending: descending)
            conditions.append("NOT \(sql)")
            arguments += endArguments as [any DatabaseValueConvertible]
        }
        let direction = descending ? "DESC" : "ASC"
        let order = (orderColumns + ["id"]).map { "\($0) \(direction)" }.joined(separator: ", ")
        let keyColumns = orderColumns.enumerated().map { ", \($1) AS k\($0)" }.joined()
        arguments.append(Int64(limit))
        let sql = """
            SELECT id, CAST(tbl AS BLOB) AS tbl, body\(keyColumns) FROM tinyvex_documents \
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(order) LIMIT ?
            """
        return (sql, arguments)
    }
}
