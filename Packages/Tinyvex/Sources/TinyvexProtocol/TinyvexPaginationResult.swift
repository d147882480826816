/// One page of a paginated query: `{page, isDone, continueCursor}`.
///
/// `continueCursor` is where the next page starts, and, given back as `endCursor`, where this
/// page ends: the position of its last item, or (when `isDone`) the end of the whole range, so
/// that the last page keeps growing with the items added after it.
public struct TinyvexPaginationResult<Item> {
    /// The page's items, in the query's order.
    public var page: [Item]
    /// Whether the page reached the end of the query's range (there is nothing after it).
    public var isDone: Bool
    /// The cursor of the page's end: the next page's `cursor`, this page's `endCursor`.
    public var continueCursor: String

    /// A page of `page`, done or not, continuing at `continueCursor`.
    public init(page: [Item], isDone: Bool, continueCursor: String) {
        self.page = page
        self.isDone = isDone
        self.continueCursor = continueCursor
    }

    /// The same page with each item transformed.
    public func map<Other>(_ transform: (Item) throws -> Other) rethrows -> TinyvexPaginationResult<Other> {
        TinyvexPaginationResult<Other>(page: try page.map(transform), isDone: isDone, continueCursor: continueCursor)
    }
}

extension TinyvexPaginationResult: Encodable where Item: Encodable {}
extension TinyvexPaginationResult: Decodable where Item: Decodable {}
extension TinyvexPaginationResult: Sendable where Item: Sendable {}
extension TinyvexPaginationResult: Equatable where Item: Equatable {}
