/// Where a paginated live query stands (``TinyvexPaginatedQuery``), as Convex's
/// `usePaginatedQuery` reports it.
public enum TinyvexPaginationStatus: Sendable, Hashable {
    /// The first page has not arrived yet.
    case loadingFirstPage
    /// The pages loaded so far do not reach the end: ``TinyvexPaginatedQuery/loadMore(_:)``
    /// reads the next one.
    case canLoadMore
    /// The page asked for by ``TinyvexPaginatedQuery/loadMore(_:)`` has not arrived yet.
    case loadingMore
    /// The last page reaches the end of the query's range; items added later show in it.
    case exhausted
}
