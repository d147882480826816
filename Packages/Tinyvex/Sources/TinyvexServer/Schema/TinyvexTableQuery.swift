public import RpcWire

/// A query of one table's documents, built by ``TinyvexQueryContext/query(_:)``: in creation
/// order, or through a declared index (an index seek in SQLite), ascending or descending,
/// optionally limited. Only what it reads (the index interval, else the table) is recorded, so
/// a write outside it does not re-run the query.
///
/// ```swift
/// let latest = try context.query("messages")
///     .withIndex("by_channel") { $0.eq("channel", channel) }
///     .order(.desc)
///     .take(50)
/// ```
public struct TinyvexTableQuery {
    /// The direction of a query: by the index's fields then creation order (or by creation
    /// order alone without an index), ascending or descending.
    public enum Order: Sendable, Hashable {
        /// Smallest first; oldest first among equal values.
        case asc
        /// Largest first; newest first among equal values.
        case desc
    }

    let context: TinyvexQueryContext
    let table: String
    var index: (name: String, range: TinyvexIndexRange)?
    var direction: Order = .asc

    init(context: TinyvexQueryContext, table: String) {
        self.context = context
        self.table = table
    }

    /// Reads through the declared index `name` of the table, limited to `range` (all of the
    /// index when omitted).
    public func withIndex(_ name: String, _ range: (TinyvexIndexRange) -> TinyvexIndexRange = { $0 }) -> Self {
        var query = self
        query.index = (name, range(TinyvexIndexRange()))
        return query
    }

    /// Sets the direction (ascending by default).
    public func order(_ order: Order) -> Self {
        var query = self
        query.direction = order
        return query
    }

    /// The first `count` documents in the query's order.
    ///
    /// - Throws: ``TinyvexServerError``: `TVX002` for an undeclared index, a range that does
    ///   not fit the index, or a negative `count`; `TVX007` past the evaluation time.
    public func take(_ count: Int) throws -> [JSONObject] {
        try context.read(self, limit: count)
    }

    /// Every document of the query, in its order.
    ///
    /// - Throws: ``TinyvexServerError``, as ``take(_:)``.
    public func collect() throws -> [JSONObject] {
        try context.read(self, limit: nil)
    }

    /// The first document in the query's order, or `nil` when there is none.
    ///
    /// - Throws: ``TinyvexServerError``, as ``take(_:)``.
    public func first() throws -> JSONObject? {
        try take(1).first
    }
}
