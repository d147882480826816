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
    /// One server serves a database at a time (its commit order is the order of its one
    /// writer): the writer connection holds a PostgreSQL advisory lock for as long as `body`
    /// runs (released at the end, or by the database when the process dies), and a second
    /// server on the same database fails at once instead.
    ///
    /// - Throws: ``TinyvexPostgresError`` for a URL that cannot be used or a database another
    ///   server holds, the driver's error when the database cannot be reached, or what `body`
    ///   throws.
    @discardableResult
    public static func withDatabase<T>(
        url: String,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (TinyvexDatabase) async throws -> T
    ) async throws -> T {
        let configuration = try TinyvexPostgresURL(url).configuration()
        let logger = Logger(label: "tinyvex.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        let writer = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        let reader: PostgresConnection
        do {
            reader = try await PostgresConnection.connect(configuration: configuration, id: 2, logger: logger)
        } catch {
            try? await writer.close()
            throw error
        }
        let outcome: Result<T, any Error>
        do {
            var locked = false
            for try await taken in try await writer.query("SELECT pg_try_advisory_lock(\(serverLock))", logger: logger).decode(Bool.self) {
                locked = taken
            }
            guard locked else {
                throw TinyvexPostgresError("another Tinyvex server is using this database (one server per database)")
            }
            let database = TinyvexPostgresDatabase(
                writer: PostgresConnectionSession(connection: writer, logger: logger),
                reader: PostgresConnectionSession(connection: reader, logger: logger))
            outcome = .success(try await body(.postgres(database)))
        } catch {
            outcome = .failure(error)
        }
        try? await reader.close()
        try? await writer.close()
        return try outcome.get()
    }
}
