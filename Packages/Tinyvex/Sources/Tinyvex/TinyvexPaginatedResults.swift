/// What a paginated live query shows at one moment: every loaded page's items, in order, and
/// its ``TinyvexPaginationStatus``.
public struct TinyvexPaginatedResults<Item> {
    /// The items of the loaded pages, concatenated in the query's order.
    public var results: [Item]
    /// Whether a page is loading, more can be loaded, or the end was reached.
    public var status: TinyvexPaginationStatus

    /// Results of `results` with `status`.
    public init(results: [Item], status: TinyvexPaginationStatus) {
        self.results = results
        self.status = status
    }
}

extension TinyvexPaginatedResults: Sendable where Item: Sendable {}
extension TinyvexPaginatedResults: Equatable where Item: Equatable {}
