import GRDB
import RpcWire
import TinyvexProtocol

extension DocumentStore {
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
        var conditions = ["tbl = CAST(? AS TEXT)"]
        var arguments: [any DatabaseValueConvertible] = [exactText(table)]
        var orderColumns: [String] = []
        if let index, let interval {
            let found = try IndexScan(index: index, table: table).conditions(interval)
            conditions = found.conditions
            arguments += found.arguments
            orderColumns = index.fields.dropFirst(interval.prefix.count).map(IndexScan.expression)
        }
        if let end {
            let (sql, endArguments) = end.afterSQL(columns: orderColumns, descending: descending)
            conditions.append("NOT \(sql)")
            arguments += endArguments as [any DatabaseValueConvertible]
        }
        let direction = descending ? "DESC" : "ASC"
        let order = (orderColumns + ["id"]).map { "\($0) \(direction)" }.joined(separator: ", ")
        let keyColumns = orderColumns.enumerated().map { ", \($1) AS k\($0)" }.joined()
        var found: [PageRow] = []
        var last = start
        while true {
            try check()
            var rowConditions = conditions
            var rowArguments = arguments
            if let last {
                let (sql, afterArguments) = last.afterSQL(columns: orderColumns, descending: descending)
                rowConditions.append(sql)
                rowArguments += afterArguments as [any DatabaseValueConvertible]
                // A plain bound on the first ordered field lets SQLite seek to the position
                // instead of reading the range from its start.
                if !descending, let first = orderColumns.first, let key = last.keys.first, key != .null {
                    rowConditions.append("\(first) >= ?")
                    rowArguments.append(key.databaseValue)
                }
            }
            let batch = limit.map { max(1, $0 - found.count) } ?? 256
            rowArguments.append(Int64(batch))
            let sql = """
                SELECT id, CAST(tbl AS BLOB) AS tbl, body\(keyColumns) FROM tinyvex_documents \
                WHERE \(rowConditions.joined(separator: " AND ")) ORDER BY \(order) LIMIT ?
                """
            let rows = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(rowArguments))
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
            if rows.count < batch { break }
            if let limit, found.count >= limit { break }
        }
        return limit.map { Array(found.prefix($0)) } ?? found
    }
}
