import Logging
import PostgresNIO
public import TinyvexServer

/// Tinyvex's documents in PostgreSQL: ``withDatabase(url:_:)`` opens the connections a server
/// needs and gives the ``TinyvexServer/TinyvexDatabase`` to serve from.
///
/// ```swift
/// try await TinyvexPostgres.withDatabase(url: "postgres://tinyvex@127.0.0.1/tinyvex") { database in
///     try await TinyvexServer.withServer(schema: schema, database: database) { server in … }
/// }
/// ```
public enum TinyvexPostgres {
    /// The advisory lock the one server of a database holds.
    static let serverLock: Int64 = 7_236_018_257_022

    /// Connects to the database `url` names, runs `body` with it, and closes the connections
    /// when `body` returns or throws. The store's tables are made when the server opens it.
    ///
    /// Without `node`, one server serves the database (its commit order is the order of its one
    /// writer): the writer connection holds a PostgreSQL advisory lock for as long as `body`
    /// runs (released at the end, or by the database when the process dies), and a second
    /// server on the same database fails at once instead.
    ///
    /// With `node` (a name of this server), the servers given the same database form a cluster:
    /// each commit locks the version row, so commits of all servers take one order, records its
    /// writes in `tinyvex_commits` and notifies the others (`LISTEN`/`NOTIFY`), which re-run
    /// the live queries those writes meet. The writes of the last `commitRetention` commits are
    /// kept; a server further behind than that re-runs all of its live queries.
    ///
    /// - Throws: ``TinyvexPostgresError`` for a URL that cannot be used or a database another
    ///   server holds, the driver's error when the database cannot be reached, or what `body`
    ///   throws.
    @discardableResult
    public static func withDatabase<T>(
        url: String,
        node: String? = nil,
        commitRetention: Int = TinyvexPostgresDatabase.defaultCommitRetention,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (TinyvexDatabase) async throws -> T
    ) async throws -> T {
        let configuration = try TinyvexPostgresURL(url).configuration()
        let logger = Logger(label: "tinyvex.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        var connections: [PostgresConnection] = []
        let outcome: Result<T, any Error>
        do {
            for id in 1...(node == nil ? 2 : 3) {
                connections.append(try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger))
            }
            outcome = .success(try await serve(connections, node: node, commitRetention: commitRetention, logger: logger, body))
        } catch {
            outcome = .failure(error)
        }
        for connection in connections {
            try? await connection.close()
        }
        return try outcome.get()
    }

    /// Runs `body` with the database on open `connections` (writer, reader and, in a cluster,
    /// the listener).
    private static func serve<T>(
        _ connections: [PostgresConnection], node: String?, commitRetention: Int, logger: Logger, isolation: isolated (any Actor)? = #isolation, _ body: (TinyvexDatabase) async throws -> T
    ) async throws -> T {
        let writer = connections[0]
        let database = TinyvexPostgresDatabase(
            writer: PostgresConnectionSession(connection: writer, logger: logger),
            reader: PostgresConnectionSession(connection: connections[1], logger: logger),
            node: node, commitRetention: commitRetention)
        guard node != nil, connections.count > 2 else {
            var locked = false
            for try await taken in try await writer.query("SELECT pg_try_advisory_lock(\(serverLock))", logger: logger).decode(Bool.self) {
                locked = taken
            }
            guard locked else {
                throw TinyvexPostgresError("another Tinyvex server is using this database (one server per database)")
            }
            return try await body(.postgres(database))
        }
        // Listening before the server opens the store, so no commit after it is missed.
        return try await connections[2].listen(on: TinyvexPostgresDatabase.commitChannel) { notifications in
            try await withThrowingTaskGroup(of: Void.self, returning: T.self) { group in
                group.addTask {
                    for try await _ in notifications { database.commitNotified() }
                }
                defer {
                    group.cancelAll()
                    database.finishNotifications()
                }
                return try await body(.postgres(database))
            }
        }
    }
}
