import GRDB
import RpcWire
import TinyvexProtocol

extension DocumentStore: TinyvexStore {
    /// One server per SQLite file: no other server commits.
    var commitNotifications: AsyncStream<Void>? { nil }

    func write<T>(_ body: (any TinyvexStoreTransaction) throws -> T) throws -> T {
        try writer.write { db in try body(SQLiteStoreTransaction(db: db)) }
    }

    func read<T>(_ body: (any TinyvexStoreTransaction) throws -> T) throws -> T {
        try writer.read { db in try body(SQLiteStoreTransaction(db: db)) }
    }

    func snapshotRead<T: Sendable>(_ body: @escaping @Sendable (any TinyvexStoreTransaction) throws -> T) async throws -> T {
        try await writer.read { db in try body(SQLiteStoreTransaction(db: db)) }
    }
}

// The query and mutation contexts call the store through these, whatever store it is.
extension DocumentStore {
    static func document(_ table: String, id: Int64, _ store: any TinyvexStoreTransaction) throws -> JSONObject? {
        try store.document(table, id: id)
    }

    static func documents(_ table: String, _ store: any TinyvexStoreTransaction) throws -> [(Int64, JSONObject)] {
        try store.documents(table)
    }

    static func documents(_ table: String, field: String, equals key: IndexKey, _ store: any TinyvexStoreTransaction) throws -> [(Int64, JSONObject)] {
        try store.documents(table, field: field, equals: key)
    }

    static func documents(
        _ table: String, index: TinyvexIndex, in interval: IndexInterval, descending: Bool, limit: Int?, _ store: any TinyvexStoreTransaction
    ) throws -> [(Int64, JSONObject)] {
        try store.documents(table, index: index, in: interval, descending: descending, limit: limit)
    }

    static func documents(_ table: String, descending: Bool, limit: Int?, _ store: any TinyvexStoreTransaction) throws -> [(Int64, JSONObject)] {
        try store.documents(table, descending: descending, limit: limit)
    }

    static func pageRows(
        _ table: String, index: TinyvexIndex?, in interval: IndexInterval?, descending: Bool,
        after start: PagePosition?, upTo end: PagePosition?, limit: Int?, check: () throws -> Void, _ store: any TinyvexStoreTransaction
    ) throws -> [PageRow] {
        try store.pageRows(table, index: index, in: interval, descending: descending, after: start, upTo: end, limit: limit, check: check)
    }

    static func insert(_ table: String, _ fields: JSONObject, _ store: any TinyvexStoreTransaction) throws -> Int64 {
        try store.insert(table, fields)
    }

    static func replace(_ table: String, id: Int64, _ fields: JSONObject, _ store: any TinyvexStoreTransaction) throws {
        try store.replace(table, id: id, fields)
    }

    static func delete(_ table: String, id: Int64, _ store: any TinyvexStoreTransaction) throws {
        try store.delete(table, id: id)
    }
}

extension ScheduledStore {
    static func insert(kind: Kind, name: String, args: JSONValue, runAt: Int64, limit: Int, _ store: any TinyvexStoreTransaction) throws -> Int64? {
        try store.insertScheduled(kind: kind, name: name, args: args, runAt: runAt, limit: limit)
    }

    static func remove(_ id: Int64, _ store: any TinyvexStoreTransaction) throws -> Bool {
        try store.removeScheduled(id)
    }
}
