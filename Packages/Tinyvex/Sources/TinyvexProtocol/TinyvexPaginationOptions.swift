/// Which page a paginated query reads: `paginationOpts` in the query's params.
///
/// The first page has no `cursor`; each next one starts at the `continueCursor` of the page
/// before it. A page whose end is pinned (`endCursor`, the `continueCursor` its first read
/// returned) reads up to that position whatever `numItems` says, so its boundaries stay put
/// while documents are inserted and deleted around them. Cursors are opaque strings the server
/// made; one that is malformed, or made by another query, is refused with `TVX002`.
///
/// ```swift
/// struct PageParams: Codable { var channel: String; var paginationOpts: TinyvexPaginationOptions }
/// ```
public struct TinyvexPaginationOptions: Codable, Sendable, Hashable {
    /// How many items the page reads when its end is not pinned (at least 1; the server
    /// refuses more than its configured most with `TVX002`).
    public var numItems: Int
    /// Where the page starts (exclusive): `nil` for the first page, else the `continueCursor`
    /// of the page before it.
    public var cursor: String?
    /// Where the page ends (inclusive), once pinned: the `continueCursor` of the page's first
    /// read. `nil` reads `numItems` items.
    public var endCursor: String?

    /// Options for a page of `numItems` from `cursor`, ending at `endCursor` when pinned.
    public init(numItems: Int, cursor: String? = nil, endCursor: String? = nil) {
        self.numItems = numItems
        self.cursor = cursor
        self.endCursor = endCursor
    }
}
