import GRDB
import RpcWire
import TinyvexProtocol

/// The documents in SQLite: one table of JSON objects keyed by (table name, id), the server's
/// version counter, and the stored results of committed mutations.
struct DocumentStore: Sendable {
    let writer: any DatabaseWriter

    /// Opens (and creates when new) the store.
    init(_ database: TinyvexDatabase) throws {
        switch database {
        case .inMemory:
            writer = try DatabaseQueue()
        case .file(let path):
            // A pool opens the file in WAL mode: readers see committed snapshots while a
            // mutation writes.
            writer = try DatabasePool(path: path)
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
        }
    }

    /// The version of the last committed mutation.
    func version() throws -> Int64 {
        try writer.read { db in try Self.version(db) }
    }

    static func version(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT value FROM tinyvex_meta WHERE key = 'version'") ?? 0
    }

    static func setVersion(_ version: Int64, _ db: Database) throws {
        try db.execute(sql: "UPDATE tinyvex_meta SET value = ? WHERE key = 'version'", arguments: [version])
    }

    // MARK: Documents

    static func document(_ table: String, id: Int64, _ db: Database) throws -> JSONObject? {
        guard let body = try String.fetchOne(db, sql: "SELECT body FROM tinyvex_documents WHERE tbl = ? AND id = ?", arguments: [table, id]) else {
            return nil
        }
        return try decodeBody(body)
    }

    static func documents(_ table: String, _ db: Database) throws -> [(Int64, JSONObject)] {
        let rows = try Row.fetchAll(db, sql: "SELECT id, body FROM tinyvex_documents WHERE tbl = ? ORDER BY id", arguments: [table])
        return try rows.map { row in (row["id"], try decodeBody(row["body"])) }
    }

    static func documents(_ table: String, field: String, equals key: IndexKey, _ db: Database) throws -> [(Int64, JSONObject)] {
        let path = try jsonPath(field)
        let argument: any DatabaseValueConvertible =
            switch key {
            case .number(let number): number
            case .text(let text): text
            }
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT id, body FROM tinyvex_documents WHERE tbl = ? AND json_extract(body, ?) = ? ORDER BY id",
            arguments: [table, path, argument])
        return try rows.map { row in (row["id"], try decodeBody(row["body"])) }
    }

    static func insert(_ table: String, _ fields: JSONObject, _ db: Database) throws -> Int64 {
        try db.execute(sql: "INSERT INTO tinyvex_documents(tbl, body) VALUES (?, ?)", arguments: [table, try encodeBody(fields)])
        return db.lastInsertedRowID
    }

    static func replace(_ table: String, id: Int64, _ fields: JSONObject, _ db: Database) throws {
        try db.execute(sql: "UPDATE tinyvex_documents SET body = ? WHERE tbl = ? AND id = ?", arguments: [try encodeBody(fields), table, id])
    }

    static func delete(_ table: String, id: Int64, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM tinyvex_documents WHERE tbl = ? AND id = ?", arguments: [table, id])
    }

    // MARK: Mutation results

    static func storedResult(_ requestID: String, _ db: Database) throws -> (JSONValue, Int64)? {
        guard let row = try Row.fetchOne(db, sql: "SELECT result, version FROM tinyvex_requests WHERE request_id = ?", arguments: [requestID]) else {
            return nil
        }
        let text: String = row["result"]
        return (try JSONParser().parse(text), row["version"])
    }

    static func storeResult(_ requestID: String, _ result: JSONValue, version: Int64, retention: Int, _ db: Database) throws {
        let text = String(decoding: try JSONSerializer().serialize(result), as: UTF8.self)
        try db.execute(
            sql: "INSERT INTO tinyvex_requests(request_id, result, version) VALUES (?, ?, ?)",
            arguments: [requestID, text, version])
        try db.execute(
            sql: "DELETE FROM tinyvex_requests WHERE seqno <= (SELECT MAX(seqno) FROM tinyvex_requests) - ?",
            arguments: [max(1, retention)])
    }

    // MARK: Helpers

    private static func decodeBody(_ body: String) throws -> JSONObject {
        guard case .object(let fields) = try JSONParser().parse(body) else {
            throw TinyvexServerError(.mutationFailed, "a stored document is not an object")
        }
        return fields
    }

    private static func encodeBody(_ fields: JSONObject) throws -> String {
        String(decoding: try JSONSerializer().serialize(.object(fields)), as: UTF8.self)
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
