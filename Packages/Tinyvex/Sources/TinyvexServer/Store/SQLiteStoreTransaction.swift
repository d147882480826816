import GRDB
import RpcWire
import TinyvexProtocol

/// One transaction of the SQLite store (``DocumentStore``): each operation is the store's own
/// statement on `db`.
struct SQLiteStoreTransaction: TinyvexStoreTransaction {
    /// The GRDB connection, inside its transaction.
    let db: Database

    func version() throws -> DocumentStore.StoredVersion { try DocumentStore.version(db) }
    func setVersion(_ version: Int64) throws { try DocumentStore.setVersion(version, db) }

    func document(_ table: String, id: Int64) throws -> JSONObject? { try DocumentStore.document(table, id: id, db) }
    func documents(_ table: String) throws -> [(Int64, JSONObject)] { try DocumentStore.documents(table, db) }
    func documents(_ table: String, field: String, equals key: IndexKey) throws -> [(Int64, JSONObject)] {
        try DocumentStore.documents(table, field: field, equals: key, db)
    }
    func documents(_ table: String, index: TinyvexIndex, in interval: IndexInterval, descending: Bool, limit: Int?) throws -> [(Int64, JSONObject)] {
        try DocumentStore.documents(table, index: index, in: interval, descending: descending, limit: limit, db)
    }
    func documents(_ table: String, descending: Bool, limit: Int?) throws -> [(Int64, JSONObject)] {
        try DocumentStore.documents(table, descending: descending, limit: limit, db)
    }
    func pageRows(
        _ table: String, index: TinyvexIndex?, in interval: IndexInterval?, descending: Bool,
        after start: PagePosition?, upTo end: PagePosition?, limit: Int?, check: () throws -> Void
    ) throws -> [DocumentStore.PageRow] {
        try DocumentStore.pageRows(table, index: index, in: interval, descending: descending, after: start, upTo: end, limit: limit, check: check, db)
    }
    func insert(_ table: String, _ fields: JSONObject) throws -> Int64 { try DocumentStore.insert(table, fields, db) }
    func replace(_ table: String, id: Int64, _ fields: JSONObject) throws { try DocumentStore.replace(table, id: id, fields, db) }
    func delete(_ table: String, id: Int64) throws { try DocumentStore.delete(table, id: id, db) }

    func recordCommit(version: Int64, writes: [DocumentWrite]) throws {}
    func remoteCommits(after version: Int64) throws -> [(version: Int64, writes: [DocumentWrite])] { [] }

    func inSavepoint(_ body: () throws -> Void) throws {
        try db.inSavepoint {
            try body()
            return .commit
        }
    }

    func storedResult(_ key: String) throws -> (JSONValue, Int64)? { try DocumentStore.storedResult(key, db) }
    func storeResult(_ key: String, _ result: JSONValue, version: Int64, retention: Int, retentionBytes: Int, storedBytes: Int) throws -> Int {
        try DocumentStore.storeResult(key, result, version: version, retention: retention, retentionBytes: retentionBytes, storedBytes: storedBytes, db)
    }
    func resultBytes() throws -> Int { try DocumentStore.resultBytes(db) }

    func insertScheduled(kind: ScheduledStore.Kind, name: String, args: JSONValue, runAt: Int64, limit: Int) throws -> Int64? {
        try ScheduledStore.insert(kind: kind, name: name, args: args, runAt: runAt, limit: limit, db)
    }
    func removeScheduled(_ id: Int64) throws -> Bool { try ScheduledStore.remove(id, db) }
    func dueScheduled(now: Int64, limit: Int, report: (String) -> Void) throws -> [ScheduledStore.Job] {
        try ScheduledStore.due(now: now, limit: limit, report: report, db)
    }
    func nextScheduledRunAt() throws -> Int64? { try ScheduledStore.nextRunAt(db) }
    func scheduledCount() throws -> Int { try ScheduledStore.count(db) }
}
