public import RpcWire
public import TinyvexProtocol

extension TinyvexTableQuery {
    /// One page of the query, as Convex's `paginate`: `{page, isDone, continueCursor}`.
    ///
    /// The first page has no cursor; the next one starts at the `continueCursor` of the one
    /// before. Only the part of the order the page read is recorded, so a write elsewhere does
    /// not re-run it. A page pinned with `endCursor` (its first read's `continueCursor`) reads
    /// up to that position whatever `numItems` says: while documents are inserted and deleted
    /// around it, no item moves to another page, so none is skipped or shown twice.
    ///
    /// ```swift
    /// schema.query("messages.page") { (context, params: PageParams) in
    ///     try context.query("messages").withIndex("by_channel") { $0.eq("channel", params.channel) }
    ///         .order(.asc).paginate(params.paginationOpts).map(JSONValue.object)
    /// }
    /// ```
    ///
    /// - Throws: ``TinyvexServerError`` `TVX002` for a cursor that is malformed or made by
    ///   another query, `numItems` outside `1...maxPaginationItems`, or as ``take(_:)``.
    public func paginate(_ options: TinyvexPaginationOptions) throws -> TinyvexPaginationResult<JSONObject> {
        try context.paginate(self, options)
    }

    /// One page of `numItems` items after `cursor` (`nil` for the first page); see
    /// ``paginate(_:)``.
    ///
    /// - Throws: As ``paginate(_:)``.
    public func paginate(cursor: String?, numItems: Int) throws -> TinyvexPaginationResult<JSONObject> {
        try context.paginate(self, TinyvexPaginationOptions(numItems: numItems, cursor: cursor))
    }
}
