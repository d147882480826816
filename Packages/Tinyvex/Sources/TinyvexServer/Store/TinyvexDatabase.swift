/// Where a ``TinyvexServer`` keeps its documents.
public enum TinyvexDatabase: Sendable, Hashable {
    /// A private in-memory database (for tests and demos); it is gone when the server stops.
    case inMemory
    /// An SQLite file in WAL mode, created when missing.
    case file(String)
}
