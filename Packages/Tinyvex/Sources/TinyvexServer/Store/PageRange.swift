import RpcWire

/// The part of a query's order one page read: the documents of its index interval (or of its
/// table, without an index) after `start` and up to `end` (inclusive; `nil` for the end of the
/// range). A committed write re-runs the page only when a document it wrote, before or after,
/// falls in it.
struct PageRange: Sendable, Hashable {
    let table: String
    /// The index interval read; `nil` for a table in creation order.
    let interval: IndexInterval?
    /// The index fields after the interval's equalities, which a position holds values of.
    let orderFields: [String]
    let descending: Bool
    /// Exclusive; `nil` from the start of the range.
    let start: PagePosition?
    /// Inclusive; `nil` to the end of the range.
    let end: PagePosition?

    /// Whether the document `id` with `fields` is in the page's part of the order. A document
    /// whose ordered field is an array or an object (SQLite orders those by their JSON text) is
    /// taken to be in it, so the page re-runs rather than misses it.
    func contains(_ fields: JSONObject, id: Int64) -> Bool {
        if let interval, !interval.contains(fields) { return false }
        var keys: [PagePosition.Key] = []
        for field in orderFields {
            guard let key = PagePosition.Key(document: fields[field]) else { return true }
            keys.append(key)
        }
        let position = PagePosition(keys: keys, id: id)
        if let start, !position.isAfter(start, descending: descending) { return false }
        if let end, position.isAfter(end, descending: descending) { return false }
        return true
    }
}
