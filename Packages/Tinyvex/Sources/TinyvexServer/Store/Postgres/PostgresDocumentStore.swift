import RpcWire
import Synchronization
import TinyvexProtocol

/// The documents in PostgreSQL: the tables of the SQLite store (documents, the version counter,
/// the results of committed mutations, the scheduled functions), made when missing, and a
/// PostgreSQL expression index for each declared index.
///
/// The engine's transactions run on the database's writer session, one at a time and in one
/// commit order: each commit updates the `version` row of `tinyvex_meta`, and one server holds
/// the database (the TinyvexPostgres library takes an advisory lock for it). Reads away from the
/// engine run on the reader session in `REPEATABLE READ` snapshots.
///
/// Table names are stored as their UTF-8 bytes (`bytea`) and documents as JSON text (which
/// escapes U+0000), so no text loses what follows a NUL, and every match is checked again in
/// Swift as the SQLite store does.
struct PostgresDocumentStore: TinyvexStore {
    private let writer: LockedSession
    private let reader: LockedSession
    private let indexes: [String: [String: TinyvexIndex]]
    /// This server's name when several share the database.
    private let node: String?
    private let commitRetention: Int64
    let commitNotifications: AsyncStream<Void>?
    /// Where snapshot reads block, away from the engine's queue and the cooperative pool.
    private let readExecutor = StoreExecutor(label: "tinyvex.postgres.read")

    /// A session used by one transaction at a time.
    final class LockedSession: Sendable {
        let session: any PostgresSession
        private let lock = Mutex(())

        init(_ session: any PostgresSession) {
            self.session = session
        }

        /// Runs `body` in a transaction begun with `begin`: committed when it returns, rolled
        /// back when it throws.
        func transaction<T>(begin: String, _ body: (any PostgresSession) throws -> T) throws -> T {
            try lock.withLock { _ in
                _ = try session.run(begin, [])
                let value: T
                do {
                    value = try body(session)
                } catch {
                    _ = try? session.run("ROLLBACK", [])
                    throw error
                }
                _ = try session.run("COMMIT", [])
                return value
            }
        }
    }

    /// Opens the store on `database`, making its tables and the declared indexes when missing.
    ///
    /// - Throws: ``TinyvexServerError`` for a second server on one database value, a name that
    ///   is not letters, digits and `_`, or a database that refuses the statements.
    init(_ database: TinyvexPostgresDatabase, indexes: [String: [String: TinyvexIndex]]) throws {
        guard database.claim() else {
            throw TinyvexServerError(.mutationFailed, "this PostgreSQL database is already open for a server")
        }
        try TinyvexIndex.validate(indexes)
        writer = LockedSession(database.writer)
        reader = LockedSession(database.reader)
        self.indexes = indexes
        node = database.node
        commitRetention = database.commitRetention
        commitNotifications = database.node == nil ? nil : database.notifications
        try writer.transaction(begin: "BEGIN") { session in
            // Servers opening one database at once make its tables in turn.
            _ = try session.run("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", [])
            for statement in Self.tables {
                _ = try session.run(statement, [])
            }
            var made: Set<String> = []
            for (table, declared) in indexes {
                for index in declared.values {
                    let scan = PostgresIndexScan(index: index, table: table)
                    _ = try session.run(scan.createSQL, [])
                    made.insert(scan.sqlName)
                }
            }
            // Indexes made for declarations the schema no longer has are dropped.
            let existing = try session.run(
                "SELECT indexname::text FROM pg_indexes WHERE tablename = 'tinyvex_documents' AND starts_with(indexname::text, 'tinyvex_index_')", [])
            for row in existing {
                guard case .text(let name)? = row.first, !made.contains(name), TinyvexIndex.isPlainName(name) else { continue }
                _ = try session.run("DROP INDEX IF EXISTS \(name)", [])
            }
        }
    }

    /// The advisory lock held while the tables are made.
    static let migrationLock: Int64 = 7_236_018_257_021

    /// The store's tables, the same as the SQLite store's with PostgreSQL types.
    static let tables = [
        """
        CREATE TABLE IF NOT EXISTS tinyvex_documents (
            id bigserial PRIMARY KEY, tbl bytea NOT NULL, body text NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS tinyvex_documents_tbl ON tinyvex_documents (tbl, id)",
        "CREATE TABLE IF NOT EXISTS tinyvex_meta (key text PRIMARY KEY, value bigint NOT NULL)",
        "INSERT INTO tinyvex_meta (key, value) VALUES ('version', 0) ON CONFLICT (key) DO NOTHING",
        """
        CREATE TABLE IF NOT EXISTS tinyvex_requests (
            seqno bigserial PRIMARY KEY, request_id text NOT NULL UNIQUE, result text NOT NULL, version bigint NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS tinyvex_scheduled (
            id bigserial PRIMARY KEY, run_at bigint NOT NULL, call text NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS tinyvex_scheduled_run_at ON tinyvex_scheduled (run_at, id)",
        // The writes of recent commits, for the other servers sharing the database.
        "CREATE TABLE IF NOT EXISTS tinyvex_commits (version bigint PRIMARY KEY, node text NOT NULL, writes text NOT NULL)",
    ]

    func write<T>(_ body: (any TinyvexStoreTransaction) throws -> T) throws -> T {
        try writer.transaction(begin: "BEGIN") { session in
            if node != nil {
                // Servers sharing the database commit one at a time, each after the last: the
                // version row is locked until this transaction ends.
                _ = try session.run("SELECT value FROM tinyvex_meta WHERE key = 'version' FOR UPDATE", [])
            }
            return try body(PostgresStoreTransaction(session: session, indexes: indexes, node: node, commitRetention: commitRetention))
        }
    }

    func read<T>(_ body: (any TinyvexStoreTransaction) throws -> T) throws -> T {
        try writer.transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY") { session in
            try body(PostgresStoreTransaction(session: session, indexes: indexes, node: node, commitRetention: commitRetention))
        }
    }

    func snapshotRead<T: Sendable>(_ body: @escaping @Sendable (any TinyvexStoreTransaction) throws -> T) async throws -> T {
        let reader = self.reader
        let indexes = self.indexes
        let node = self.node
        let commitRetention = self.commitRetention
        return try await readExecutor.run {
            try reader.transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY") { session in
                try body(PostgresStoreTransaction(session: session, indexes: indexes, node: node, commitRetention: commitRetention))
            }
        }
    }
}
