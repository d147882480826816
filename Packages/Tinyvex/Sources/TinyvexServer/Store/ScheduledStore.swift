import GRDB
import RpcWire
import TinyvexProtocol

/// The scheduled functions in SQLite: one row per function waiting to run, written in the
/// transaction of the mutation that scheduled it (so a mutation rolled back schedules nothing),
/// and removed in the transaction of the scheduled mutation that runs it (so it runs once).
enum ScheduledStore {
    /// What a scheduled function is.
    enum Kind: String, Sendable {
        case mutation
        case action
    }

    /// One scheduled function, as read back.
    struct Job: Sendable {
        let id: Int64
        let kind: Kind
        let name: String
        let args: JSONValue
        /// When it is due, in milliseconds since 1970.
        let runAt: Int64
    }

    /// Creates the table (and its index by due time) when it is missing.
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS tinyvex_scheduled (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                run_at INTEGER NOT NULL,
                call TEXT NOT NULL
            );
            CREATE INDEX IF NOT EXISTS tinyvex_scheduled_run_at ON tinyvex_scheduled(run_at, id);
            """)
    }

    /// Stores a function to run at `runAt` unless `limit` are waiting already; returns its id,
    /// or `nil` when the limit is reached.
    static func insert(kind: Kind, name: String, args: JSONValue, runAt: Int64, limit: Int, _ db: Database) throws -> Int64? {
        let count = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM tinyvex_scheduled")) ?? 0
        guard count < limit else { return nil }
        // The call is JSON text, which escapes every character SQLite could cut a string at.
        let call = String(decoding: try JSONSerializer().serialize(.array([.string(kind.rawValue), .string(name), args])), as: UTF8.self)
        try db.cachedStatement(sql: "INSERT INTO tinyvex_scheduled(run_at, call) VALUES (?, ?)").execute(arguments: [runAt, call])
        return db.lastInsertedRowID
    }

    /// Removes the function `id`; returns whether it was waiting.
    static func remove(_ id: Int64, _ db: Database) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM tinyvex_scheduled WHERE id = ?").execute(arguments: [id])
        return db.changesCount > 0
    }

    /// The functions due at `now`, earliest first, at most `limit`; a row that cannot be read
    /// back (a damaged file) is removed and reported through `report`.
    static func due(now: Int64, limit: Int, report: (String) -> Void, _ db: Database) throws -> [Job] {
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT id, run_at, call FROM tinyvex_scheduled WHERE run_at <= ? ORDER BY run_at, id LIMIT ?"),
            arguments: [now, limit])
        var jobs: [Job] = []
        for row in rows {
            let idValue: DatabaseValue = row["id"]
            guard case .int64(let id) = idValue.storage else { continue }
            let runAtValue: DatabaseValue = row["run_at"]
            let callValue: DatabaseValue = row["call"]
            guard case .int64(let runAt) = runAtValue.storage, let text = String.fromDatabaseValue(callValue),
                case .array(let call)? = try? JSONParser().parse(text), call.count == 3,
                case .string(let kindName) = call[0], let kind = Kind(rawValue: kindName), case .string(let name) = call[1]
            else {
                report("tinyvex: the scheduled function \(id) cannot be read back and is removed")
                _ = try remove(id, db)
                continue
            }
            jobs.append(Job(id: id, kind: kind, name: name, args: call[2], runAt: runAt))
        }
        return jobs
    }

    /// When the earliest waiting function is due, in milliseconds since 1970.
    static func nextRunAt(_ db: Database) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT MIN(run_at) FROM tinyvex_scheduled"))
    }

    /// How many functions wait.
    static func count(_ db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM tinyvex_scheduled")) ?? 0
    }
}
