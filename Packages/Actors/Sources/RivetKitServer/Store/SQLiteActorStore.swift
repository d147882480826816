import Foundation
import GRDB
import RivetKit

/// An ``ActorStore`` in an embedded SQLite database, through GRDB: one row per actor, its state
/// as JSON text, in write-ahead-log mode so that a saved state survives a crash or restart.
///
/// Every text crosses into SQLite with its length (bound as its UTF-8 bytes and cast to text)
/// and is read back the same way, never as a C string: a namespace, name, key or id holding
/// NUL is compared and kept whole, so texts that differ after a NUL are different actors.
///
/// ```swift
/// let store = try SQLiteActorStore(path: "actors.sqlite")
/// ```
public final class SQLiteActorStore: ActorStore {
    let database: DatabaseQueue

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
        Self.registerScheduleMigration(&migrator)
        try migrator.migrate(database)
    }

    /// The actor of a namespace, name and key.
    public func actor(namespace: String, name: String, key: [String]) async throws -> StoredActor? {
        try await database.read { db in
            try Row.fetchOne(
                db, sql: "\(Self.select) WHERE namespace = CAST(? AS TEXT) AND name = CAST(? AS TEXT) AND key = CAST(? AS TEXT)",
                arguments: [Self.text(namespace), Self.text(name), Self.text(ActorKey.serialize(key))]
            ).map(Self.record)
        }
    }

    /// The actor with an id.
    public func actor(id: String) async throws -> StoredActor? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "\(Self.select) WHERE id = CAST(? AS TEXT)", arguments: [Self.text(id)]).map(Self.record)
        }
    }

    /// Inserts an actor unless its namespace, name and key are taken.
    public func insert(_ actor: StoredActor) async throws -> (actor: StoredActor, inserted: Bool) {
        let state = try actor.state.jsonString()
        return try await database.write { db in
            let key = Self.text(ActorKey.serialize(actor.key))
            if let existing = try Row.fetchOne(
                db, sql: "\(Self.select) WHERE namespace = CAST(? AS TEXT) AND name = CAST(? AS TEXT) AND key = CAST(? AS TEXT)",
                arguments: [Self.text(actor.namespace), Self.text(actor.name), key])
            {
                return (try Self.record(existing), false)
            }
            try db.execute(
                sql: """
                    INSERT INTO actor (id, namespace, name, key, state, createdAt)
                    VALUES (CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?)
                    """,
                arguments: [
                    Self.text(actor.id), Self.text(actor.namespace), Self.text(actor.name), key, Self.text(state),
                    actor.createdAt,
                ])
            return (actor, true)
        }
    }

    /// Replaces an actor's state.
    public func saveState(id: String, state: JSONValue) async throws {
        let text = try state.jsonString()
        try await database.write { db in
            try db.execute(
                sql: "UPDATE actor SET state = CAST(? AS TEXT) WHERE id = CAST(? AS TEXT)",
                arguments: [Self.text(text), Self.text(id)])
        }
    }

    /// Removes an actor, and its schedules in the same transaction.
    public func delete(id: String) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM schedule WHERE actorId = CAST(? AS TEXT)", arguments: [Self.text(id)])
            try db.execute(sql: "DELETE FROM actor WHERE id = CAST(? AS TEXT)", arguments: [Self.text(id)])
            return db.changesCount > 0
        }
    }

    /// The columns of a row, every text read as its bytes (with its length).
    private static let select = """
        SELECT CAST(id AS BLOB) AS id, CAST(namespace AS BLOB) AS namespace, CAST(name AS BLOB) AS name,
        CAST(key AS BLOB) AS key, CAST(state AS BLOB) AS state, createdAt FROM actor
        """

    /// A text as the bytes SQLite is given, with their length (a `String` argument would be
    /// bound up to its first NUL).
    static func text(_ value: String) -> Data {
        Data(value.utf8)
    }

    /// A text column read as its bytes.
    static func text(_ row: Row, _ column: String) throws -> String {
        // Read through DatabaseValue: a typed subscript traps on a value it cannot convert.
        let value: DatabaseValue = row[column]
        guard let text = String(validating: Data.fromDatabaseValue(value) ?? Data(), as: UTF8.self) else {
            throw unreadable("its \(column) is not UTF-8")
        }
        return text
    }

    private static func record(_ row: Row) throws -> StoredActor {
        let id = try text(row, "id")
        let state: JSONValue
        do {
            state = try JSONValue(parsing: try text(row, "state"))
        } catch {
            throw unreadable("the saved state of \(id) is not JSON")
        }
        let createdAt = Int64.fromDatabaseValue(row["createdAt"] as DatabaseValue)
        return StoredActor(
            id: id,
            namespace: try text(row, "namespace"),
            name: try text(row, "name"),
            key: ActorKey.deserialize(try text(row, "key")),
            state: state,
            createdAt: createdAt ?? 0
        )
    }

    private static func unreadable(_ why: String) -> ActorError {
        ActorError(.actorStateUnreadable, "a stored actor cannot be read: \(why)")
    }
}
