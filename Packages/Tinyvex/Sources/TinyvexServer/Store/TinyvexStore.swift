import RpcWire
import TinyvexProtocol

/// Where the engine keeps its documents, its version, the results of committed mutations and
/// the scheduled functions: SQLite (``DocumentStore``) or PostgreSQL (``PostgresDocumentStore``).
///
/// Every call blocks the thread it runs on; the engine makes them on its own queue, never on a
/// thread of the cooperative pool. A store serves one engine's transactions one at a time, and
/// what `write` commits is seen by every later `read`.
protocol TinyvexStore: Sendable {
    /// Runs `body` in one write transaction: committed when it returns, rolled back when it
    /// throws.
    func write<T>(_ body: (any TinyvexStoreTransaction) throws -> T) throws -> T

    /// Runs `body` on one committed snapshot, from the engine's queue.
    func read<T>(_ body: (any TinyvexStoreTransaction) throws -> T) throws -> T

    /// Runs `body` on one committed snapshot away from the engine (while mutations commit), on
    /// a thread the store blocks instead of the caller's.
    func snapshotRead<T: Sendable>(_ body: @escaping @Sendable (any TinyvexStoreTransaction) throws -> T) async throws -> T

    /// For a store shared by several servers: an element each time another server may have
    /// committed (``TinyvexStoreTransaction/remoteCommits(after:)`` then says what); `nil` for a
    /// store of one server.
    var commitNotifications: AsyncStream<Void>? { get }
}

extension TinyvexStore {
    /// The version of the last committed mutation, checked.
    func version() throws -> DocumentStore.StoredVersion {
        try read { try $0.version() }
    }
}
