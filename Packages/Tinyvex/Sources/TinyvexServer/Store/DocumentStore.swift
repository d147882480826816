import Foundation
import GRDB
import RpcWire
import TinyvexProtocol

/// The documents in SQLite: one table of JSON objects keyed by (table name, id), the server's
/// version counter, and the stored results of committed mutations.
///
/// Text never crosses into SQLite as a C string (GRDB binds a `String` and reads a text column
/// up to its first NUL): client text is bound as JSON text (which escapes U+0000) or as a blob
/// cast to text, table names are read back as blobs, and every match is checked again in
/// Swift, so two strings that differ only after a NUL stay different.
struct DocumentStore: Sendable {
    let writer: any DatabaseWriter

    /// Opens (and creates when new) the store; a file syncs its commits as `durability` says.
    /// Opens (and creates when new) the store with an SQLite index for each declared index of
    /// `indexes` (by table, then name); a file syncs its commits as `durability` says.
    ///
    /// - Throws: ``TinyvexServerError`` for a table, index or field name that is not letters,
    ///   digits and `_`, or an index without fields; a GRDB error when the database fails.
    init(_ database: TinyvexDatabase, durability: TinyvexDurability = .full, indexes: [String: [String: TinyvexIndex]] = [:]) throws {
        try TinyvexIndex.validate(indexes)
        switch database {
        case .inMemory:
            writer = try DatabaseQueue()
        case .file(let path):
            // A pool opens the file in WAL mode: readers see committed snapshots while a
            // mutation writes. Only its one writer connection commits, so the setting is made
            // there (the pool itself sets NORMAL when it opens).
            let pool = try DatabasePool(path: path)
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = \(durability.synchronousPragma)")
            }
            writer = pool
        case .postgres:
            throw TinyvexServerError(.mutationFailed, "a PostgreSQL database is not an SQLite store")
        }
        try writer.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS tinyvex_documents (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    tbl TEXT NOT NULL,
                    body TEXT NOT NULL
                );
                CREATE INDEX IF NOT EXISTS tinyvex_documents_tbl ON tinyvex_documents(tbl, id);
                CREATE TABLE IF NOT EXISTS tinyvex_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
                INSERT OR IGNORE INTO tinyvex_meta(key, value) VALUES ('version', 0);
                CREATE TABLE IF NOT EXISTS tinyvex_requests (
                    seqno INTEGER PRIMARY KEY AUTOINCREMENT,
                    request_id TEXT NOT NULL UNIQUE,
                    result TEXT NOT NULL,
                    version INTEGER NOT NULL
                );
                """)
            try ScheduledStore.create(db)
            var made: Set<String> = []
            for (table, declared) in indexes {
                for index in declared.values {
                    let scan = IndexScan(index: index, table: table)
                    try db.execute(sql: scan.createSQL)
                    made.insert(scan.sqlName)
                }
            }
            try IndexScan.dropUndeclared(keeping: made, db)
        }
    }

    /// The largest version (and so `seq`) the server issues: half of `Int64.max`, so that any
    /// sum of two seqs still fits.
    static let maxVersion: Int64 = Int64.max / 2

    /// The stored version as found: a usable one, or why it cannot be used.
    enum StoredVersion: Equatable {
        case usable(Int64)
        case unusable(String)
    }

    /// The version of the last committed mutation, checked.
    func version() throws -> StoredVersion {
        try writer.read { db in try Self.version(db) }
    }

    static func version(_ db: Database) throws -> StoredVersion {
        guard let value = try DatabaseValue.fetchOne(db, sql: "SELECT value FROM tinyvex_meta WHERE key = 'version'") else {
            return .usable(0)
        }
        guard case .int64(let version) = value.storage else {
            return .unusable("the stored version is \(value), not an integer")
        }
        guard (0...maxVersion).contains(version) else {
            return .unusable("the stored version \(version) is outside 0...\(maxVersion)")
        }
        return .usable(version)
    }

    /// Stores `version` after checking it is one the server can go on from.
    static func setVersion(_ version: Int64, _ db: Database) throws {
        guard (0...maxVersion).contains(version) else {
            throw TinyvexServerError(.mutationFailed, "the version \(version) is outside 0...\(maxVersion) and is not stored")
        }
        try db.cachedStatement(sql: "UPDATE tinyvex_meta SET value = ? WHERE key = 'version'").execute(arguments: [version])
    }

    // MARK: Documents

    static func document(_ table: String, id: Int64, _ db: Database) throws -> JSONObject? {
        let rows = try Row.fetchAll(db.cachedStatement(sql: "SELECT CAST(tbl AS BLOB) AS tbl, body FROM tinyvex_documents WHERE id = ?"), arguments: [id])
        for row in rows where try tableMatches(row, table) {
            return try decodeBody(row)
        }
        return nil
    }

    static func documents(_ table: String, _ db: Database) throws -> [(Int64, JSONObject)] {
        let rows = try Row.fetchAll(db.cachedStatement(sql: "SELECT id, CAST(tbl AS BLOB) AS tbl, body FROM tinyvex_documents WHERE tbl = CAST(? AS TEXT) ORDER BY id"), arguments: [exactText(table)])
        return try rows.compactMap { row in try tableMatches(row, table) ? (try decodeID(row), try decodeBody(row)) : nil }
    }

    /// The documents of `table` whose top-level `field` equals `key`, compared exactly.
    ///
    /// SQLite narrows the rows (a number by value through `json_extract`, a string by its JSON
    /// text through `->`, which keeps the escapes of the stored text), and each row is checked
    /// again in Swift, so neither a NUL nor SQLite's JSON decoding can make two values equal.
    static func documents(_ table: String, field: String, equals key: IndexKey, _ db: Database) throws -> [(Int64, JSONObject)] {
        let path = try jsonPath(field)
        let rows: [Row]
        switch key {
        case .number(let number):
            rows = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT id, CAST(tbl AS BLOB) AS tbl, body FROM tinyvex_documents WHERE tbl = CAST(? AS TEXT) AND json_extract(body, ?) = ? ORDER BY id"),
                arguments: [exactText(table), path, number])
        case .text(let text):
            rows = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT id, CAST(tbl AS BLOB) AS tbl, body FROM tinyvex_documents WHERE tbl = CAST(? AS TEXT) AND (body -> ?) = ? ORDER BY id"),
                arguments: [exactText(table), path, try jsonText(.string(text))])
        }
        var found: [(Int64, JSONObject)] = []
        for row in rows where try tableMatches(row, table) {
            let body = try decodeBody(row)
            if let value = body[field], IndexKey(value) == key {
                found.append((try decodeID(row), body))
            }
        }
        return found
    }

    /// The documents of `table` in `interval` of its declared `index`, in index order
    /// (`descending` or not), at most `limit` (all when `nil`). SQLite seeks to the interval
    /// through the index; each row is checked again in Swift (``IndexInterval/contains(_:)``),
    /// and rows refused there are replaced by the next ones, so a limit is still filled.
    static func documents(
        _ table: String, index: TinyvexIndex, in interval: IndexInterval, descending: Bool, limit: Int?, _ db: Database
    ) throws -> [(Int64, JSONObject)] {
        let scan = IndexScan(index: index, table: table)
        var found: [(Int64, JSONObject)] = []
        var offset = 0
        while true {
            let wanted = limit.map { max(1, $0 - found.count) }
            let (sql, arguments) = try scan.select(interval, descending: descending, limit: wanted, offset: offset)
            let rows = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments([exactText(table)] + arguments))
            for row in rows where try tableMatches(row, table) {
                let body = try decodeBody(row)
                if interval.contains(body) { found.append((try decodeID(row), body)) }
            }
            offset += rows.count
            guard let limit, let wanted, found.count < limit, rows.count == wanted else { break }
        }
        return limit.map { Array(found.prefix($0)) } ?? found
    }

    /// The documents of `table` in creation order (`descending` or not), at most `limit` (all
    /// when `nil`).
    static func documents(_ table: String, descending: Bool, limit: Int?, _ db: Database) throws -> [(Int64, JSONObject)] {
        let sql = "SELECT id, CAST(tbl AS BLOB) AS tbl, body FROM tinyvex_documents WHERE tbl = CAST(? AS TEXT) ORDER BY id \(descending ? "DESC" : "ASC") LIMIT ?"
        let rows = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: [exactText(table), limit.map(Int64.init) ?? -1])
        return try rows.compactMap { row in try tableMatches(row, table) ? (try decodeID(row), try decodeBody(row)) : nil }
    }

    static func insert(_ table: String, _ fields: JSONObject, _ db: Database) throws -> Int64 {
        try db.cachedStatement(sql: "INSERT INTO tinyvex_documents(tbl, body) VALUES (CAST(? AS TEXT), ?)").execute(arguments: [exactText(table), try encodeBody(fields)])
        return db.lastInsertedRowID
    }

    static func replace(_ table: String, id: Int64, _ fields: JSONObject, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE tinyvex_documents SET body = ? WHERE tbl = CAST(? AS TEXT) AND id = ?").execute(arguments: [try encodeBody(fields), exactText(table), id])
    }

    static func delete(_ table: String, id: Int64, _ db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM tinyvex_documents WHERE tbl = CAST(? AS TEXT) AND id = ?").execute(arguments: [exactText(table), id])
    }

    // MARK: Mutation results

    /// The key a mutation result is stored under: the JSON text of `[scope, requestId]`, so
    /// that no two (scope, requestId) pairs share one and no NUL reaches SQLite.
    static func resultKey(scope: String, requestID: String) throws -> String {
        try jsonText(.array([.string(scope), .string(requestID)]))
    }

    /// The stored answer to `key`: its value and version; a row that cannot be read back (a
    /// damaged file) is an error, not a trap.
    static func storedResult(_ key: String, _ db: Database) throws -> (JSONValue, Int64)? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT result, version FROM tinyvex_requests WHERE request_id = ?"), arguments: [key]) else {
            return nil
        }
        let resultValue: DatabaseValue = row[0]
        let versionValue: DatabaseValue = row[1]
        guard let text = String.fromDatabaseValue(resultValue), case .int64(let version) = versionValue.storage, (0...maxVersion).contains(version) else {
            throw TinyvexServerError(.mutationFailed, "the stored result of this requestId cannot be read")
        }
        return (try JSONParser().parse(text), version)
    }

    /// Stores a mutation's result under `key`, then forgets the oldest results past `retention`
    /// rows or `retentionBytes` bytes (the newest one is always kept). Returns the bytes the
    /// stored results take after that.
    static func storeResult(_ key: String, _ result: JSONValue, version: Int64, retention: Int, retentionBytes: Int, storedBytes: Int, _ db: Database) throws -> Int {
        guard (0...maxVersion).contains(version) else {
            throw TinyvexServerError(.mutationFailed, "the version \(version) is outside 0...\(maxVersion) and is not stored")
        }
        let text = try jsonText(result)
        try db.cachedStatement(sql: "INSERT INTO tinyvex_requests(request_id, result, version) VALUES (?, ?, ?)")
            .execute(arguments: [key, text, version])
        try db.cachedStatement(sql: "DELETE FROM tinyvex_requests WHERE seqno <= (SELECT MAX(seqno) FROM tinyvex_requests) - ?")
            .execute(arguments: [max(1, retention)])
        var total = saturatingAdd(storedBytes, saturatingAdd(key.utf8.count, text.utf8.count))
        if total > retentionBytes {
            // Oldest first, until the rest fits; the row just stored stays.
            total = try resultBytes(db)
            let rows = try Row.fetchAll(db.cachedStatement(sql: "SELECT seqno, length(CAST(request_id AS BLOB)) + length(CAST(result AS BLOB)) FROM tinyvex_requests ORDER BY seqno"))
            var last: Int64?
            for row in rows.dropLast() where total > retentionBytes {
                let seqno: DatabaseValue = row[0]
                let size: DatabaseValue = row[1]
                guard case .int64(let number) = seqno.storage else { continue }
                if case .int64(let bytes) = size.storage, let bytes = Int(exactly: bytes) {
                    total = max(0, total - bytes)
                }
                last = number
            }
            if let last {
                try db.cachedStatement(sql: "DELETE FROM tinyvex_requests WHERE seqno <= ?").execute(arguments: [last])
            }
        }
        return total
    }

    /// The bytes the stored mutation results take (keys and results).
    static func resultBytes(_ db: Database) throws -> Int {
        let value = try DatabaseValue.fetchOne(db.cachedStatement(sql: "SELECT SUM(length(CAST(request_id AS BLOB)) + length(CAST(result AS BLOB))) FROM tinyvex_requests"))
        guard let value, case .int64(let total) = value.storage else { return 0 }
        return Int(clamping: total)
    }

    // MARK: Helpers

    static func saturatingAdd(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int.max : sum
    }

    /// Text bound as a blob and cast in SQL, so SQLite receives every byte (a C string would
    /// end at the first NUL).
    static func exactText(_ text: String) -> Data {
        Data(text.utf8)
    }

    /// Whether the row's `tbl` (selected as a blob: read as text, GRDB would cut it at a NUL) is
    /// exactly `table`.
    static func tableMatches(_ row: Row, _ table: String) throws -> Bool {
        let value: DatabaseValue = row["tbl"]
        switch value.storage {
        case .string(let text): return text == table
        case .blob(let bytes): return Array(bytes) == Array(table.utf8)
        default: return false
        }
    }

    static func decodeID(_ row: Row) throws -> Int64 {
        let value: DatabaseValue = row["id"]
        guard case .int64(let id) = value.storage else {
            throw TinyvexServerError(.mutationFailed, "a stored document has no integer id")
        }
        return id
    }

    static func decodeBody(_ row: Row) throws -> JSONObject {
        let value: DatabaseValue = row["body"]
        guard let body = String.fromDatabaseValue(value), case .object(let fields) = try JSONParser().parse(body) else {
            throw TinyvexServerError(.mutationFailed, "a stored document is not an object")
        }
        return fields
    }

    private static func encodeBody(_ fields: JSONObject) throws -> String {
        try jsonText(.object(fields))
    }

    private static func jsonText(_ value: JSONValue) throws -> String {
        String(decoding: try JSONSerializer().serialize(value), as: UTF8.self)
    }

    /// The SQLite JSON path of a top-level field; field names are letters, digits and `_`.
    private static func jsonPath(_ field: String) throws -> String {
        let allowed = !field.isEmpty && field.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
        }
        guard allowed else {
            throw TinyvexServerError(.mutationFailed, "an index field must be letters, digits and _: \(field)")
        }
        return "$.\(field)"
    }
}
