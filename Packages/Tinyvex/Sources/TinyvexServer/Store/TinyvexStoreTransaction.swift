import RpcWire
import TinyvexProtocol

/// The operations of one transaction of a ``TinyvexStore``. Text reaches the database whole (a
/// NUL included) and every match is checked again in Swift, so two strings that differ only
/// after a NUL stay different in every store.
protocol TinyvexStoreTransaction {
    // MARK: Version

    /// The version of the last committed mutation, checked.
    func version() throws -> DocumentStore.StoredVersion
    /// Stores `version` after checking it is one the server can go on from.
    func setVersion(_ version: Int64) throws

    // MARK: Documents

    /// The document `id` of `table`, if there is one.
    func document(_ table: String, id: Int64) throws -> JSONObject?
    /// Every document of `table`, in creation order.
    func documents(_ table: String) throws -> [(Int64, JSONObject)]
    /// The documents of `table` whose top-level `field` equals `key`, compared exactly.
    func documents(_ table: String, field: String, equals key: IndexKey) throws -> [(Int64, JSONObject)]
    /// The documents of `table` in `interval` of its declared `index`, in index order, at most
    /// `limit` (all when `nil`).
    func documents(_ table: String, index: TinyvexIndex, in interval: IndexInterval, descending: Bool, limit: Int?) throws -> [(Int64, JSONObject)]
    /// The documents of `table` in creation order, at most `limit` (all when `nil`).
    func documents(_ table: String, descending: Bool, limit: Int?) throws -> [(Int64, JSONObject)]
    /// One read of a paginated query: the documents after `start` and up to `end` in the
    /// order of `index` over `interval` (creation order without an index), at most `limit`.
    func pageRows(
        _ table: String, index: TinyvexIndex?, in interval: IndexInterval?, descending: Bool,
        after start: PagePosition?, upTo end: PagePosition?, limit: Int?, check: () throws -> Void
    ) throws -> [DocumentStore.PageRow]
    /// Adds a document to `table` and returns its id.
    func insert(_ table: String, _ fields: JSONObject) throws -> Int64
    /// Replaces the fields of document `id` of `table`.
    func replace(_ table: String, id: Int64, _ fields: JSONObject) throws
    /// Removes document `id` of `table`.
    func delete(_ table: String, id: Int64) throws

    /// Records the writes of the commit that ends at `version`, for the other servers of a
    /// shared store (nothing for a store of one server).
    func recordCommit(version: Int64, writes: [DocumentWrite]) throws
    /// The commits other servers of a shared store made after `version`, in order, with their
    /// writes (none for a store of one server).
    func remoteCommits(after version: Int64) throws -> [(version: Int64, writes: [DocumentWrite])]

    /// Runs `body` in a savepoint: released when it returns, rolled back (and the error
    /// rethrown) when it throws. Each mutation of a group commit runs in one.
    func inSavepoint(_ body: () throws -> Void) throws

    // MARK: Mutation results

    /// The stored answer to `key` (``DocumentStore/resultKey(scope:requestID:)``): its value and
    /// version.
    func storedResult(_ key: String) throws -> (JSONValue, Int64)?
    /// Stores a mutation's result under `key`, then forgets the oldest results past `retention`
    /// rows or `retentionBytes` bytes (the newest one is always kept). Returns the bytes the
    /// stored results take after that.
    func storeResult(_ key: String, _ result: JSONValue, version: Int64, retention: Int, retentionBytes: Int, storedBytes: Int) throws -> Int
    /// The bytes the stored mutation results take (keys and results).
    func resultBytes() throws -> Int

    // MARK: Scheduled functions

    /// Stores a function to run at `runAt` unless `limit` are waiting already; returns its id,
    /// or `nil` when the limit is reached.
    func insertScheduled(kind: ScheduledStore.Kind, name: String, args: JSONValue, runAt: Int64, limit: Int) throws -> Int64?
    /// Removes the scheduled function `id`; returns whether it was waiting.
    func removeScheduled(_ id: Int64) throws -> Bool
    /// The functions due at `now`, earliest first, at most `limit`; a row that cannot be read
    /// back is removed and reported through `report`.
    func dueScheduled(now: Int64, limit: Int, report: (String) -> Void) throws -> [ScheduledStore.Job]
    /// When the earliest waiting function is due, in milliseconds since 1970.
    func nextScheduledRunAt() throws -> Int64?
    /// How many scheduled functions wait.
    func scheduledCount() throws -> Int
}
