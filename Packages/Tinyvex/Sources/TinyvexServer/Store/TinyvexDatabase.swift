/// Where a ``TinyvexServer`` keeps its documents.
public enum TinyvexDatabase: Sendable, Hashable {
    /// A private in-memory database (for tests and demos); it is gone when the server stops.
    case inMemory
    /// An SQLite file in WAL mode, created when missing.
    case file(String)
    /// A PostgreSQL database, opened with the TinyvexPostgres library
    /// (`TinyvexPostgres.withDatabase(url:)`); its tables are made when missing.
    case postgres(TinyvexPostgresDatabase)
}

extension TinyvexDatabase {
    /// Opens the store this database names, with a database index for each declared index.
    func openStore(durability: TinyvexDurability, indexes: [String: [String: TinyvexIndex]]) throws -> any TinyvexStore {
        switch self {
        case .inMemory, .file:
            return try DocumentStore(self, durability: durability, indexes: indexes)
        case .postgres(let database):
            return try PostgresDocumentStore(database, indexes: indexes)
        }
    }
}
