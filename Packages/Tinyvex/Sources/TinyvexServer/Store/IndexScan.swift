import GRDB
import RpcWire

/// The SQL of a declared index: the SQLite index that backs it (on the table name and each
/// field's JSON value; SQLite adds the id, which is creation order) and the statement that reads an
/// ``IndexInterval`` through it, so SQLite seeks to the interval instead of scanning.
///
/// Field values are compared as `json_extract` gives them, on both sides: a query's value is
/// bound as JSON text and passed through `json_extract` too, so whatever SQLite makes of a
/// value, a stored one and the same one in a query are made the same. `json_extract` ends a
/// string at its first U+0000, which keeps the order but may make two strings equal, so the
/// bounds are given to SQLite inclusive and every row is checked exactly in Swift
/// (``IndexInterval/contains(_:)``): SQLite returns a superset in index order, never less.
struct IndexScan {
    let index: TinyvexIndex
    let table: String

    /// The start of the SQLite name of every index made for a declaration, which tells them
    /// from any other index of the file.
    static let namePrefix = "tinyvex_index_"

    /// The SQLite name of the index: each name with its length, so no two declarations share one.
    var sqlName: String {
        let parts = [table, index.name] + index.fields
        return Self.namePrefix + parts.map { "\($0.utf8.count)_\($0)" }.joined(separator: "_")
    }

    /// Drops the indexes made for declarations (named with ``namePrefix``) that are not in
    /// `declared` (SQLite names): an index the schema no longer declares would otherwise stay
    /// in the file, updated by every write and read by nothing.
    static func dropUndeclared(keeping declared: Set<String>, _ db: Database) throws {
        let names = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND substr(name, 1, ?) = ?",
            arguments: [namePrefix.utf8.count, namePrefix])
        // Only names this store can have made (letters, digits, `_`), so none needs quoting.
        for name in names where !declared.contains(name) && name.utf8.allSatisfy(Self.isPlainByte) {
            try db.execute(sql: "DROP INDEX IF EXISTS \"\(name)\"")
        }
    }

    private static func isPlainByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
    }

    /// The expression of `field`'s value, the same text in the index and in its queries.
    static func expression(_ field: String) -> String {
        "json_extract(body, '$.\(field)')"
    }

    /// `CREATE INDEX` for the declaration; names were checked to be plain (letters, digits, `_`).
    var createSQL: String {
        // SQLite ends every index with the rowid (`id`, creation order).
        let columns = ["tbl"] + index.fields.map(Self.expression)
        return "CREATE INDEX IF NOT EXISTS \"\(sqlName)\" ON tinyvex_documents(\(columns.joined(separator: ", ")))"
    }

    /// The statement reading `interval` in index order (`descending` or not), `limit` rows
    /// (all when `nil`) from `offset`, and its arguments after the table name.
    func select(_ interval: IndexInterval, descending: Bool, limit: Int?, offset: Int) throws -> (sql: String, arguments: [any DatabaseValueConvertible]) {
        var (conditions, arguments) = try self.conditions(interval)
        let direction = descending ? "DESC" : "ASC"
        // The fields fixed by an equality are left out: SQLite does not see them as constant in
        // an ORDER BY and would sort the rows instead of reading them in index order.
        let order = (index.fields.dropFirst(interval.prefix.count).map(Self.expression) + ["id"]).map { "\($0) \(direction)" }.joined(separator: ", ")
        let sql = """
            SELECT id, CAST(tbl AS BLOB) AS tbl, body FROM tinyvex_documents \
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(order) LIMIT ? OFFSET ?
            """
        arguments.append(limit.map(Int64.init) ?? -1)
        arguments.append(Int64(offset))
        return (sql, arguments)
    }

    /// The conditions narrowing the rows to `interval` (the first one on the table name, whose
    /// argument the caller binds), with their arguments after the table name.
    func conditions(_ interval: IndexInterval) throws -> (conditions: [String], arguments: [any DatabaseValueConvertible]) {
        var conditions = ["tbl = CAST(? AS TEXT)"]
        var arguments: [any DatabaseValueConvertible] = []
        for (field, key) in zip(index.fields, interval.prefix) {
            conditions.append("\(Self.expression(field)) = json_extract(?, '$')")
            arguments.append(try Self.jsonText(key))
        }
        if let field = interval.rangeField {
            if let lower = interval.lower {
                conditions.append("\(Self.expression(field)) >= json_extract(?, '$')")
                arguments.append(try Self.jsonText(lower.key))
            }
            if let upper = interval.upper {
                conditions.append("\(Self.expression(field)) <= json_extract(?, '$')")
                arguments.append(try Self.jsonText(upper.key))
            }
        }
        return (conditions, arguments)
    }

    private static func jsonText(_ key: IndexKey) throws -> String {
        let value: JSONValue = switch key {
        case .number(let number): .double(number)
        case .text(let text): .string(text)
        }
        return String(decoding: try JSONSerializer().serialize(value), as: UTF8.self)
    }
}
