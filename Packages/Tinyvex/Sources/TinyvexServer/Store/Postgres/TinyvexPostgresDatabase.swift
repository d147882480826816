import Synchronization

/// A PostgreSQL database opened by the TinyvexPostgres library for one server
/// (``TinyvexDatabase/postgres(_:)``): its connections, open for as long as the scope that
/// made it runs.
public final class TinyvexPostgresDatabase: Sendable, Hashable {
    /// The connection of the engine's transactions (mutations, and queries on the engine).
    let writer: any PostgresSession
    /// The connection of snapshot reads made away from the engine.
    let reader: any PostgresSession
    /// This server's name among the servers sharing the database; `nil` for a server alone.
    let node: String?
    /// How many recent commits' writes the cluster keeps for servers that are behind.
    let commitRetention: Int64
    /// An element each time a commit notification arrives (with `node`).
    let notifications: AsyncStream<Void>
    private let notify: AsyncStream<Void>.Continuation
    /// Whether a store was opened on it: one server per database value.
    private let opened = Mutex(false)

    /// A database on two open sessions; the caller closes them after the server stops. With
    /// `node`, other servers share the database and ``commitNotified()`` is called for each of
    /// their commit notifications.
    package init(
        writer: any PostgresSession, reader: any PostgresSession, node: String? = nil,
        commitRetention: Int = TinyvexPostgresDatabase.defaultCommitRetention
    ) {
        self.writer = writer
        self.reader = reader
        self.node = node
        self.commitRetention = Int64(clamping: max(1, commitRetention))
        // Only whether something arrived matters: the commits are read from the database.
        (notifications, notify) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The default of `commitRetention`: 10,000 commits.
    public static let defaultCommitRetention = 10_000

    /// The channel commit notifications are sent on.
    package static let commitChannel = "tinyvex_commits"

    /// Says that another server may have committed.
    package func commitNotified() {
        notify.yield()
    }

    /// Ends the notifications: the scope that made the database is ending.
    package func finishNotifications() {
        notify.finish()
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
