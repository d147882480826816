import Foundation
import Logging
public import PostgresNIO
public import RivetKit
public import RivetKitServer
import RpcTransportNIO

/// An `ActorStore` in PostgreSQL, through postgres-nio: actors, their state
/// and their schedules in tables several servers may share (`rivet_actor`, `rivet_schedule`).
///
/// Texts that name things (ids, namespaces, names, keys, actions) are stored as their UTF-8
/// bytes (`bytea`), so a text holding NUL, which PostgreSQL's `text` refuses, is kept whole and
/// compared exactly, as the SQLite store does. States and arguments are JSON text.
///
/// Claiming due schedules is safe with several servers on one database: each due schedule is
/// removed by exactly one claim (`FOR UPDATE SKIP LOCKED`), so it runs at most once.
///
/// ```swift
/// try await PostgresActorStore.withStore(url: "postgres://rivet@127.0.0.1/rivet") { store in
///     try await withActorServer(registry: registry, store: store) { server in … }
/// }
/// ```
public final class PostgresActorStore: ActorScheduleStore, ActorLeaseStore {
    /// The client the store's queries go through; whoever made it runs it.
    public let client: PostgresClient
    /// This server's node name when several servers share the database; `nil` for one server.
    public let leaseNode: String?
    /// How long an actor's lease lasts unless renewed (with ``leaseNode``).
    public let leaseDuration: Duration
    private let logger = Logger(label: "rivetkit.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The default lease: 10 seconds.
    public static let defaultLeaseDuration: Duration = .seconds(10)

    /// A store on a client that the caller runs (`client.run()` in a task of its own, for as
    /// long as the store is used). Call ``migrate()`` once before use.
    ///
    /// - Parameters:
    ///   - client: The database client.
    ///   - node: This server's name when several servers share the database (each awake actor
    ///     is then owned by one node through a lease); `nil` for a server alone.
    ///   - leaseDuration: How long a lease lasts unless renewed; at least a second.
    public init(client: PostgresClient, node: String? = nil, leaseDuration: Duration = PostgresActorStore.defaultLeaseDuration) {
        self.client = client
        self.leaseNode = node
        self.leaseDuration = max(leaseDuration, .seconds(1))
    }

    /// Runs a client for `url`, makes the store's tables when they are missing, runs `body` with
    /// the store, and stops the client when `body` returns or throws.
    ///
    /// One server at a time serves a database: until actors are placed on one node of several
    /// (each awake actor owned by one node), two servers would both wake the same actor. So the
    /// store holds a PostgreSQL advisory lock for as long as `body` runs (released at the end, or
    /// by the database when the process dies), and a second store on the same database fails at
    /// once instead.
    ///
    /// - Throws: ``PostgresStoreError`` for a URL that cannot be used or a database another
    ///   server is using, the database's error when the tables cannot be made, or what `body`
    ///   throws.
    /// With `node`, the servers sharing the database form a cluster instead: each awake actor
    /// is owned by one node through a lease (`ActorLeaseStore`), any node
    /// forwards a request to the owner, and no lock is taken.
    @discardableResult
    public static func withStore<T: Sendable>(
        url: String, node: String? = nil, leaseDuration: Duration = PostgresActorStore.defaultLeaseDuration,
        _ body: (PostgresActorStore) async throws -> T
    ) async throws -> T {
        let client = PostgresClient(configuration: try PostgresURL(url).clientConfiguration)
        return try await withThrowingTaskGroup(of: Void.self, returning: T.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let store = PostgresActorStore(client: client, node: node, leaseDuration: leaseDuration)
            try await store.migrate()
            if node != nil { return try await body(store) }
            return try await store.holdingServerLock { try await body(store) }
        }
    }

    /// The advisory lock of the one server of a database.
    private static let serverLock: Int64 = 7_236_018_257_012

    /// Runs `body` holding the server lock on a connection of its own.
    private func holdingServerLock<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await client.withConnection { connection in
            var locked = false
            for try await taken in try await connection.query(
                "SELECT pg_try_advisory_lock(\(Self.serverLock))", logger: logger
            ).decode(Bool.self) {
                locked = taken
            }
            guard locked else {
                throw PostgresStoreError("another actor server is using this database (one server per database)")
            }
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try await body())
            } catch {
                outcome = .failure(error)
            }
            _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.serverLock))", logger: logger)
            return try outcome.get()
        }
    }

    /// Makes the store's tables and indexes when they are missing; several servers may do it
    /// at once (they take turns on an advisory lock).
    public func migrate() async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(7236018257011)", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS rivet_actor (
                    id bytea PRIMARY KEY, namespace bytea NOT NULL, name bytea NOT NULL, key bytea NOT NULL,
                    state text NOT NULL, created_at bigint NOT NULL, UNIQUE (namespace, name, key))
                """, logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS rivet_schedule (
                    id bytea PRIMARY KEY, actor_id bytea NOT NULL, action bytea NOT NULL, args text NOT NULL,
                    run_at bigint NOT NULL)
                """, logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS rivet_lease (
                    actor_id bytea PRIMARY KEY, node text NOT NULL, endpoint text NOT NULL, expires_at bigint NOT NULL,
                    token text NOT NULL)
                """, logger: logger)
            try await connection.query(
                "CREATE INDEX IF NOT EXISTS rivet_schedule_actor ON rivet_schedule (actor_id)", logger: logger)
            try await connection.query(
                "CREATE INDEX IF NOT EXISTS rivet_schedule_due ON rivet_schedule (run_at, id)", logger: logger)
        }
    }

    // MARK: ActorStore

    /// The actor of a namespace, name and key.
    public func actor(namespace: String, name: String, key: [String]) async throws -> StoredActor? {
        let rows = try await client.query(
            """
            SELECT id, namespace, name, key, state, created_at FROM rivet_actor
            WHERE namespace = \(Self.bytes(namespace)) AND name = \(Self.bytes(name))
            AND key = \(Self.bytes(ActorKey.serialize(key)))
            """, logger: logger)
        return try await Self.first(rows)
    }

    /// The actor with an id.
    public func actor(id: String) async throws -> StoredActor? {
        let rows = try await client.query(
            "SELECT id, namespace, name, key, state, created_at FROM rivet_actor WHERE id = \(Self.bytes(id))",
            logger: logger)
        return try await Self.first(rows)
    }

    /// Inserts an actor unless its namespace, name and key are taken; one statement decides, so
    /// two servers creating the same key at once make one actor.
    public func insert(_ actor: StoredActor) async throws -> (actor: StoredActor, inserted: Bool) {
        let state = try actor.state.jsonString()
        let key = Self.bytes(ActorKey.serialize(actor.key))
        let inserted = try await client.query(
            """
            INSERT INTO rivet_actor (id, namespace, name, key, state, created_at)
            VALUES (\(Self.bytes(actor.id)), \(Self.bytes(actor.namespace)), \(Self.bytes(actor.name)), \(key),
            \(state), \(actor.createdAt))
            ON CONFLICT (namespace, name, key) DO NOTHING RETURNING id
            """, logger: logger)
        for try await _ in inserted { return (actor, true) }
        guard let existing = try await self.actor(namespace: actor.namespace, name: actor.name, key: actor.key) else {
            throw ActorError(.rivetkitInternalError, "the actor's key was taken and then removed; try again")
        }
        return (existing, false)
    }

    /// Replaces an actor's state. In a cluster only the node holding the actor's unexpired
    /// lease may: another node's save is refused with `actor.stopping`, so a node that lost an
    /// actor cannot overwrite what its new owner saved.
    public func saveState(id: String, state: JSONValue) async throws {
        let text = try state.jsonString()
        guard let node = leaseNode else {
            try await client.query("UPDATE rivet_actor SET state = \(text) WHERE id = \(Self.bytes(id))", logger: logger)
            return
        }
        let saved = try await client.query(
            """
            UPDATE rivet_actor SET state = \(text) WHERE id = \(Self.bytes(id)) AND EXISTS (
                SELECT 1 FROM rivet_lease WHERE actor_id = \(Self.bytes(id)) AND node = \(node)
                AND expires_at >= (extract(epoch from clock_timestamp()) * 1000)::bigint)
            RETURNING id
            """, logger: logger)
        for try await _ in saved { return }
        throw ActorError(.actorStopping, "this node no longer holds the actor \(id)")
    }

    /// Removes an actor, its schedules and its lease in the same transaction.
    public func delete(id: String) async throws -> Bool {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("DELETE FROM rivet_lease WHERE actor_id = \(Self.bytes(id))", logger: logger)
            try await connection.query("DELETE FROM rivet_schedule WHERE actor_id = \(Self.bytes(id))", logger: logger)
            let removed = try await connection.query(
                "DELETE FROM rivet_actor WHERE id = \(Self.bytes(id)) RETURNING id", logger: logger)
            for try await _ in removed { return true }
            return false
        }
    }

    // MARK: ActorScheduleStore

    /// Adds a schedule unless its actor has `limit` pending ones (the count and the insert hold
    /// a lock on the actor's schedules, so servers adding at once cannot pass the limit).
    public func insertSchedule(_ schedule: StoredSchedule, limit: Int) async throws -> Bool {
        let args = try JSONValue.array(schedule.args).jsonString()
        let actorId = Self.bytes(schedule.actorId)
        return try await client.withTransaction(logger: logger) { connection in
            try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtextextended(encode(\(actorId), 'hex'), 0))", logger: logger)
            var count = 0
            for try await pending in try await connection.query(
                "SELECT COUNT(*) FROM rivet_schedule WHERE actor_id = \(actorId)", logger: logger
            ).decode(Int64.self) {
                count = Int(clamping: pending)
            }
            guard count < limit else { return false }
            try await connection.query(
                """
                INSERT INTO rivet_schedule (id, actor_id, action, args, run_at)
                VALUES (\(Self.bytes(schedule.id)), \(actorId), \(Self.bytes(schedule.action)), \(args), \(schedule.runAt))
                """, logger: logger)
            return true
        }
    }

    /// Removes one of an actor's schedules.
    public func deleteSchedule(actorId: String, id: String) async throws -> Bool {
        let removed = try await client.query(
            "DELETE FROM rivet_schedule WHERE id = \(Self.bytes(id)) AND actor_id = \(Self.bytes(actorId)) RETURNING id",
            logger: logger)
        for try await _ in removed { return true }
        return false
    }

    /// An actor's pending schedules, earliest first.
    public func schedules(actorId: String) async throws -> [StoredSchedule] {
        let rows = try await client.query(
            """
            SELECT id, actor_id, action, args, run_at FROM rivet_schedule
            WHERE actor_id = \(Self.bytes(actorId)) ORDER BY run_at, id
            """, logger: logger)
        return try await Self.schedules(rows)
    }

    /// Removes and returns the due schedules, earliest first, in one statement; a schedule
    /// another server is claiming at the same moment is skipped, not taken twice.
    public func claimDueSchedules(now: Int64, limit: Int) async throws -> [StoredSchedule] {
        let rows = try await client.query(
            """
            DELETE FROM rivet_schedule WHERE id IN (
                SELECT id FROM rivet_schedule WHERE run_at <= \(now) ORDER BY run_at, id
                LIMIT \(Int64(max(limit, 1))) FOR UPDATE SKIP LOCKED)
            RETURNING id, actor_id, action, args, run_at
            """, logger: logger)
        return try await Self.schedules(rows).sorted { ($0.runAt, $0.id) < ($1.runAt, $1.id) }
    }

    /// When the earliest pending schedule is due.
    public func nextScheduleTime() async throws -> Int64? {
        for try await earliest in try await client.query("SELECT MIN(run_at) FROM rivet_schedule", logger: logger)
            .decode(Int64?.self)
        {
            return earliest
        }
        return nil
    }

    // MARK: ActorLeaseStore

    // Leases are measured by the database's clock in milliseconds,
    // `(extract(epoch from clock_timestamp()) * 1000)::bigint`: the nodes' own clocks may differ.

    private var leaseMilliseconds: Int64 {
        let (seconds, attoseconds) = leaseDuration.components
        return seconds.multipliedReportingOverflow(by: 1000).partialValue &+ attoseconds / 1_000_000_000_000_000
    }

    /// Takes or extends the lease of `actorId` for this node when it is free, expired or this
    /// node's, in one statement; otherwise returns its holder.
    public func acquireLease(actorId: String, endpoint: String) async throws -> ActorLease {
        let token = UUID().uuidString.lowercased()
        guard let node = leaseNode else { return .held(token: token) }
        let id = Self.bytes(actorId)
        for _ in 0 ..< 3 {
            let taken = try await client.query(
                """
                INSERT INTO rivet_lease (actor_id, node, endpoint, expires_at, token)
                VALUES (\(id), \(node), \(endpoint), (extract(epoch from clock_timestamp()) * 1000)::bigint + \(leaseMilliseconds),
                    \(token))
                ON CONFLICT (actor_id) DO UPDATE SET node = EXCLUDED.node, endpoint = EXCLUDED.endpoint,
                    expires_at = EXCLUDED.expires_at, token = EXCLUDED.token
                WHERE rivet_lease.node = EXCLUDED.node OR rivet_lease.expires_at < (extract(epoch from clock_timestamp()) * 1000)::bigint
                RETURNING node
                """, logger: logger)
            for try await _ in taken { return .held(token: token) }
            let holders = try await client.query(
                "SELECT node, endpoint FROM rivet_lease WHERE actor_id = \(id)", logger: logger)
            for try await (holder, address) in holders.decode((String, String).self) {
                return .heldElsewhere(ActorLeaseHolder(nodeId: holder, endpoint: address))
            }
            // Released between the two statements: try again.
        }
        throw ActorError(.actorStopping, "the lease of \(actorId) kept changing hands")
    }

    /// Extends this node's unexpired leases of `actorIds`; returns those it no longer holds.
    public func renewLeases(actorIds: [String]) async throws -> Set<String> {
        guard let node = leaseNode, !actorIds.isEmpty else { return [] }
        let hex = actorIds.map { Self.bytes($0).map { String(format: "%02x", $0) }.joined() }
        let renewed = try await client.query(
            """
            UPDATE rivet_lease SET expires_at = (extract(epoch from clock_timestamp()) * 1000)::bigint + \(leaseMilliseconds)
            WHERE node = \(node) AND expires_at >= (extract(epoch from clock_timestamp()) * 1000)::bigint
            AND actor_id IN (SELECT decode(h, 'hex') FROM unnest(\(hex)::text[]) AS h)
            RETURNING actor_id
            """, logger: logger)
        var kept: Set<String> = []
        for try await id in renewed.decode(Data.self) {
            kept.insert(try Self.text(id, "actor_id"))
        }
        return Set(actorIds).subtracting(kept)
    }

    /// Gives up the lease of `actorId` that the taking with `token` made, if it is still that one.
    public func releaseLease(actorId: String, token: String) async throws {
        guard let node = leaseNode else { return }
        try await client.query(
            "DELETE FROM rivet_lease WHERE actor_id = \(Self.bytes(actorId)) AND node = \(node) AND token = \(token)",
            logger: logger)
    }

    // MARK: Rows

    /// A text as the bytes stored for it.
    private static func bytes(_ text: String) -> Data {
        Data(text.utf8)
    }

    private static func text(_ bytes: Data, _ column: String) throws -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ActorError(.actorStateUnreadable, "a stored actor cannot be read: its \(column) is not UTF-8")
        }
        return text
    }

    private static func first(_ rows: PostgresRowSequence) async throws -> StoredActor? {
        for try await (id, namespace, name, key, state, createdAt) in rows.decode((Data, Data, Data, Data, String, Int64).self) {
            let actorId = try text(id, "id")
            let parsed: JSONValue
            do {
                parsed = try JSONValue(parsing: state)
            } catch {
                throw ActorError(.actorStateUnreadable, "a stored actor cannot be read: the saved state of \(actorId) is not JSON")
            }
            return StoredActor(
                id: actorId, namespace: try text(namespace, "namespace"), name: try text(name, "name"),
                key: ActorKey.deserialize(try text(key, "key")), state: parsed, createdAt: createdAt)
        }
        return nil
    }

    private static func schedules(_ rows: PostgresRowSequence) async throws -> [StoredSchedule] {
        var result: [StoredSchedule] = []
        for try await (id, actorId, action, args, runAt) in rows.decode((Data, Data, Data, String, Int64).self) {
            let scheduleId = try text(id, "id")
            guard case .array(let values) = try? JSONValue(parsing: args) else {
                throw ActorError(.rivetkitInternalError, "the arguments of schedule \(scheduleId) are not a JSON array")
            }
            result.append(
                StoredSchedule(
                    id: scheduleId, actorId: try text(actorId, "actor_id"), action: try text(action, "action"),
                    args: values, runAt: runAt))
        }
        return result
    }
}
