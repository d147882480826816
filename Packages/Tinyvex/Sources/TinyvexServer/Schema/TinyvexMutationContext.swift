public import RpcWire

/// What a mutation sees: the reads of a query plus writes, all inside one savepoint that is
/// kept when the mutation returns (and committed with its transaction before it is answered)
/// and rolled back when it throws.
public final class TinyvexMutationContext: TinyvexQueryContext {
    var writes: [DocumentWrite] = []
    /// The server's scheduled functions, which ``scheduler`` stores into.
    var jobs: ScheduledJobs?

    /// Schedules functions in this mutation's savepoint: they are scheduled only if it commits.
    public var scheduler: TinyvexMutationScheduler { TinyvexMutationScheduler(context: self) }

    /// Inserts a document into `table` and returns its new id (an `id` member is ignored).
    public func insert(_ table: String, _ fields: JSONObject) throws -> Int64 {
        let stored = Self.withoutID(fields)
        let id = try DocumentStore.insert(table, stored, db)
        writes.append(DocumentWrite(table: table, id: id, before: nil, after: stored))
        return id
    }

    /// Replaces the fields of document `id` of `table`; returns whether it existed.
    @discardableResult
    public func replace(_ table: String, id: Int64, with fields: JSONObject) throws -> Bool {
        guard let before = try DocumentStore.document(table, id: id, db) else { return false }
        let stored = Self.withoutID(fields)
        try DocumentStore.replace(table, id: id, stored, db)
        writes.append(DocumentWrite(table: table, id: id, before: before, after: stored))
        return true
    }

    /// Deletes document `id` of `table`; returns whether it existed.
    @discardableResult
    public func delete(_ table: String, id: Int64) throws -> Bool {
        guard let before = try DocumentStore.document(table, id: id, db) else { return false }
        try DocumentStore.delete(table, id: id, db)
        writes.append(DocumentWrite(table: table, id: id, before: before, after: nil))
        return true
    }

    private static func withoutID(_ fields: JSONObject) -> JSONObject {
        var fields = fields
        fields.removeValue(forKey: "id")
        return fields
    }
}
