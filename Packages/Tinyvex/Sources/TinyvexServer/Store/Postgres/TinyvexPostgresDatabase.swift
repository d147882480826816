import Synchronization

/// A PostgreSQL database opened by the TinyvexPostgres library for one server
/// (``TinyvexDatabase/postgres(_:)``): its connections, open for as long as the scope that
/// made it runs.
public final class TinyvexPostgresDatabase: Sendable, Hashable {
    /// The connection of the engine's transactions (mutations, and queries on the engine).
    let writer: any PostgresSession
    /// The connection of snapshot reads made away from the engine.
    let reader: any PostgresSession
    /// Whether a store was opened on it: one server per database value.
    private let opened = Mutex(false)

    /// A database on two open sessions; the caller closes them after the server stops.
    package init(writer: any PostgresSession, reader: any PostgresSession) {
        self.writer = writer
        self.reader = reader
    }

    /// Marks the database as used by a server; `false` when one was opened on it already.
    func claim() -> Bool {
        opened.withLock { used in
            defer { used = true }
            return !used
        }
    }

    /// Two values are equal when they are the same database object.
    public static func == (lhs: TinyvexPostgresDatabase, rhs: TinyvexPostgresDatabase) -> Bool {
        lhs === rhs
    }

    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
