import Logging
import PostgresNIO
import RpcTransportNIO
public import TinyvexServer

/// Tinyvex's documents in PostgreSQL:
/// ``withDatabase(url:node:commitRetention:reconnectDelay:maxReconnectDelay:isolation:_:)``
/// opens the connections a server needs and gives the `TinyvexDatabase` to serve from.
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
    /// A connection lost while the server runs makes its statements fail with `TVX003`
    /// (`databaseUnavailable`) and is made again, after `reconnectDelay` doubling up to
    /// `maxReconnectDelay` between attempts; a server alone takes its lock again first (and
    /// stays unavailable while another server holds it), a node reads the commits it missed.
    ///
    /// - Throws: `PostgresURL`'s `invalidTarget` error for a URL that cannot be
    ///   used, ``TinyvexPostgresError`` for a database another
    ///   server holds, the driver's error when the database cannot be reached at the start, or
    ///   what `body` throws.
    @discardableResult
    public static func withDatabase<T>(
        url: String,
        node: String? = nil,
        commitRetention: Int = TinyvexPostgresDatabase.defaultCommitRetention,
        reconnectDelay: Duration = .milliseconds(100),
        maxReconnectDelay: Duration = .seconds(5),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (TinyvexDatabase) async throws -> T
    ) async throws -> T {
        let configuration = try PostgresURL(url).connectionConfiguration()
        let logger = Logger(label: "tinyvex.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        let writer = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        let reader: PostgresConnection
        do {
            reader = try await PostgresConnection.connect(configuration: configuration, id: 2, logger: logger)
        } catch {
            try? await writer.close()
            throw error
        }
        let writerSession = PostgresConnectionSession(
            connection: writer, configuration: configuration, id: 1, logger: logger, reconnectDelay: reconnectDelay,
            maxReconnectDelay: maxReconnectDelay,
            onConnect: { connection in
                guard node == nil else { return }
                // A server alone writes only while it holds the lock.
                let rows = try connection.query("SELECT pg_try_advisory_lock(\(serverLock))", logger: logger).wait()
                guard try rows.first?.decode(Bool.self) == true else {
                    throw TinyvexPostgresError("another Tinyvex server took this database while the connection was lost")
                }
            })
        let readerSession = PostgresConnectionSession(
            connection: reader, configuration: configuration, id: 2, logger: logger, reconnectDelay: reconnectDelay,
            maxReconnectDelay: maxReconnectDelay)
        let database = TinyvexPostgresDatabase(writer: writerSession, reader: readerSession, node: node, commitRetention: commitRetention)
        let outcome: Result<T, any Error>
        do {
            if node == nil {
                var locked = false
                for try await taken in try await writer.query("SELECT pg_try_advisory_lock(\(serverLock))", logger: logger).decode(Bool.self) {
                    locked = taken
                }
                guard locked else {
                    throw TinyvexPostgresError("another Tinyvex server is using this database (one server per database)")
                }
                outcome = .success(try await body(.postgres(database)))
            } else {
                let listener = try await PostgresConnection.connect(configuration: configuration, id: 3, logger: logger)
                outcome = .success(
                    try await withThrowingTaskGroup(of: Void.self, returning: T.self) { group in
                        group.addTask {
                            await listen(
                                first: listener, database: database, configuration: configuration, logger: logger,
                                reconnectDelay: reconnectDelay, maxReconnectDelay: maxReconnectDelay)
                        }
                        defer {
                            group.cancelAll()
                            database.finishNotifications()
                        }
                        return try await body(.postgres(database))
                    })
            }
        } catch {
            outcome = .failure(error)
        }
        await readerSession.close()
        await writerSession.close()
        return try outcome.get()
    }

    /// Listens for other nodes' commits until cancelled, connecting again (with backoff) when
    /// the listening connection is lost; each time it listens, the node reads the commits it may
    /// have missed.
    private static func listen(
        first: PostgresConnection, database: TinyvexPostgresDatabase, configuration: PostgresConnection.Configuration, logger: Logger,
        reconnectDelay: Duration, maxReconnectDelay: Duration
    ) async {
        var next: PostgresConnection? = first
        var delay = max(reconnectDelay, .milliseconds(1))
        while !Task.isCancelled {
            var connection = next
            next = nil
            if connection == nil {
                connection = try? await PostgresConnection.connect(configuration: configuration, id: 3, logger: logger)
            }
            if let connection {
                delay = max(reconnectDelay, .milliseconds(1))
                _ = try? await connection.listen(on: TinyvexPostgresDatabase.commitChannel) { notifications in
                    database.commitNotified()
                    for try await _ in notifications { database.commitNotified() }
                }
                try? await connection.close()
            }
            guard !Task.isCancelled else { return }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, max(maxReconnectDelay, delay))
        }
    }
}
