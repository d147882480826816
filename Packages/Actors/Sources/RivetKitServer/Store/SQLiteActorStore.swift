import GRDB
import RivetKit

/// An ``ActorStore`` in an embedded SQLite database, through GRDB: one row per actor, its state
/// as JSON text, in write-ahead-log mode so that a saved state survives a crash or restart.
///
/// ```swift
/// let store = try SQLiteActorStore(path: "actors.sqlite")
/// ```
public final class SQLiteActorStore: ActorStore {
    private let database: DatabaseQueue

    /// Opens (creating when needed) the database at `path`.
    ///
    /// - Throws: The database's error when the file cannot be opened or migrated.
    public convenience init(path: String) throws {
        var configuration = Configuration()
        configuration.journalMode = .wal
        try self.init(queue: DatabaseQueue(path: path, configuration: configuration))
    }

    /// Opens a store in a new database in memory, which does not survive the process.
    ///
    /// - Throws: The database's error.
    public static func inMemory() throws -> SQLiteActorStore {
        try SQLiteActorStore(queue: DatabaseQueue())
    }

    private init(queue: DatabaseQueue) throws {
        database = queue
        var migrator = DatabaseMigrator()
        migrator.registerMigration("actors-v1") { db in
            try db.create(table: "actor") { table in
                table.primaryKey("id", .text)
                table.column("namespace", .text).notNull()
                table.column("name", .text).notNull()
                table.column("key", .text).notNull()
                table.column("state", .text).notNull()
                table.column("createdAt", .integer).notNull()
                table.uniqueKey(["namespace", "name", "key"])
            }
        }
        try migrator.migrate(database)
    }

    /// The actor of a namespace, name and key.
    public func actor(namespace: String, name: String, key: [String]) async throws -> StoredActor? {
        try await database.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM actor WHERE namespace = ? AND name = ? AND key = ?",
                arguments: [namespace, name, ActorKey.serialize(key)]
            ).map(Self.record)
        }
    }

    /// The actor with an id.
    public func actor(id: String) async throws -> StoredActor? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM actor WHERE id = ?", arguments: [id]).map(Self.record)
        }
    }

    /// Inserts an actor unless its namespace, name and key are taken.
    public func insert(_ actor: StoredActor) async throws -> (actor: StoredActor, inserted: Bool) {
        let state = try actor.state.jsonString()
        return try await database.write { db in
            if let existing = try Row.fetchOne(
                db, sql: "SELECT * FROM actor WHERE namespace = ? AND name = ? AND key = ?",
                arguments: [actor.namespace, actor.name, ActorKey.serialize(actor.key)])
            {
                return (try Self.record(existing), false)
            }
            try db.execute(
                sql: "INSERT INTO actor (id, namespace, name, key, state, createdAt) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [actor.id, actor.namespace, actor.name, ActorKey.serialize(actor.key), state, actor.createdAt])
            return (actor, true)
        }
    }

    /// Replaces an actor's state.
    public func saveState(id: String, state: JSONValue) async throws {
        let text = try state.jsonString()
        try await database.write { db in
            try db.execute(sql: "UPDATE actor SET state = ? WHERE id = ?", arguments: [text, id])
        }
    }

    /// Removes an actor.
    public func delete(id: String) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM actor WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    private static func record(_ row: Row) throws -> StoredActor {
        let stateText: String = row["state"]
        return StoredActor(
            id: row["id"],
            namespace: row["namespace"],
            name: row["name"],
            key: ActorKey.deserialize(row["key"]),
            state: try JSONValue(parsing: stateText),
            createdAt: row["createdAt"]
        )
    }
}
