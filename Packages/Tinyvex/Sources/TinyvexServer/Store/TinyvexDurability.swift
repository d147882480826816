/// How far a committed mutation is on its way to the disk when its answer leaves: SQLite's
/// `synchronous` setting for a database file in WAL mode (an in-memory database keeps nothing).
public enum TinyvexDurability: Sendable, Hashable {
    /// `synchronous = FULL`, the default: the write-ahead log is synced to the disk before a
    /// commit returns, and a mutation is answered only after its commit, so an answered
    /// mutation survives a crash of the process, of the system and a power loss. Mutations
    /// that arrive together share one commit and so one sync
    /// (``TinyvexServerConfiguration/maxMutationsPerCommit``).
    case full
    /// `synchronous = NORMAL`: the log is synced only when SQLite checkpoints it. An answered
    /// mutation survives a crash of the process, but a crash of the system or a power loss may
    /// lose the last ones (the database stays consistent).
    case normal

    /// The value of SQLite's `PRAGMA synchronous` this durability sets.
    public var synchronousPragma: String {
        switch self {
        case .full: "FULL"
        case .normal: "NORMAL"
        }
    }
}
