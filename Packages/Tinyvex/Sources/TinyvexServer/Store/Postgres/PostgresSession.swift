/// One connection to PostgreSQL that runs statements and blocks until their rows are in.
///
/// The TinyvexPostgres library provides it (over postgres-nio), so that only that library
/// builds the driver. The store never runs two statements on one session at once.
package protocol PostgresSession: Sendable {
    /// Runs one statement with `$1`, `$2`… bound to `binds` and returns its rows, each cell as
    /// a ``PostgresValue`` (`bigint`, `double precision`, `text` and `bytea` columns; `NULL`).
    ///
    /// - Throws: ``TinyvexServerError`` when the database refuses the statement or cannot be
    ///   reached.
    func run(_ sql: String, _ binds: [PostgresValue]) throws -> [[PostgresValue]]
}
